#include "cudalabs/course/timestamp.hpp"

#include <regex>
#include <string>

#include <fmt/format.h>

namespace cudalabs::config {
namespace {

// Days from 1970-01-01 to year-month-day in the proleptic Gregorian calendar: count whole
// 400-year eras (146097 days each) from a March-based year, so February's length comes last.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

bool leap(std::int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap(year) ? 29 : days[month - 1];
}

}  // namespace

std::optional<UnixSeconds> parse_timestamp(std::string_view text) {
  static const std::regex pattern(
      R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)? ?(Z|([+-])(\d{2}):?(\d{2})))");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_match(text.begin(), text.end(), match, pattern)) return std::nullopt;
  const auto number = [&](int group) { return match[group].matched ? std::stoi(match[group].str()) : 0; };
  const int year = number(1), month = number(2), day = number(3), hour = number(4), minute = number(5),
            second = number(6);
  if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::int64_t offset_seconds = 0;
  if (match[8].matched) {
    const int offset_hours = number(9), offset_minutes = number(10);
    if (offset_hours > 23 || offset_minutes > 59) return std::nullopt;
    offset_seconds = (offset_hours * 3600 + offset_minutes * 60) * (match[8].str() == "-" ? -1 : 1);
  }
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
}

std::string format_timestamp_utc(UnixSeconds seconds) {
  std::int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
  const std::int64_t in_day = seconds - days * 86400;
  // The inverse of days_from_civil.
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned month_index = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * month_index + 2) / 5 + 1;
  const unsigned month = month_index < 10 ? month_index + 3 : month_index - 9;
  const std::int64_t year = static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", year, month, day, in_day / 3600, in_day % 3600 / 60,
                     in_day % 60);
}

}  // namespace cudalabs::config
