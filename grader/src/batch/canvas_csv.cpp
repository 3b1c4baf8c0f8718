#include "canvas_csv.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gradebook_csv.hpp"

namespace labgrade::batch {
namespace {

constexpr const char* kExpected =
    "a header row naming at least the columns Student and SIS User ID (optionally ID, SIS Login ID, Section), "
    "then one row per student; Canvas's gradebook export has this form";

struct CsvRecord {
  std::vector<std::string> fields;
  std::size_t line = 0;  // where the record starts
};

// RFC 4180 records (quoted fields may hold commas, quotes and line breaks); LF or CRLF line ends.
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file_name) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark (Excel writes one)
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  bool quoted = false, field_was_quoted = false;
  std::size_t line = 1, quote_line = 0;
  record.line = 1;
  const auto end_field = [&] {
    record.fields.push_back(field);
    field.clear();
    field_was_quoted = false;
  };
  const auto end_record = [&] {
    end_field();
    const bool blank = record.fields.size() == 1 && record.fields[0].empty();
    if (!blank) records.push_back(record);
    record = CsvRecord{};
    record.line = line;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      if (!field.empty() || field_was_quoted) {
        throw RosterError(fmt::format("{}:{}: a '\"' inside an unquoted field; expected a field that is quoted "
                                      "as a whole, its own quotes doubled (\"Chevy \"\"The Man\"\" Chase\")",
                                      file_name, line));
      }
      quoted = field_was_quoted = true;
      quote_line = line;
    } else if (c == ',') {
      end_field();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;  // the \n ends the record
    } else if (c == '\n') {
      ++line;
      end_record();
    } else {
      if (field_was_quoted) {
        throw RosterError(fmt::format("{}:{}: text after a quoted field's closing quote; expected a comma or the "
                                      "end of the line",
                                      file_name, line));
      }
      field += c;
    }
  }
  if (quoted) {
    throw RosterError(
        fmt::format("{}:{}: a quoted field is never closed; expected a closing '\"' before the end of the file",
                    file_name, quote_line));
  }
  if (!field.empty() || field_was_quoted || !record.fields.empty()) end_record();
  return records;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// RFC 4180 quoting only: canvas.csv is read by Canvas, which must see the ids as they are.
std::string quote(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string join(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + cells[i];
  return line + "\r\n";
}

// A Gradescope group's ids are joined by '+' (submission_inventory.cpp).
std::vector<std::string> member_ids(const std::string& student_id) {
  std::vector<std::string> ids;
  std::stringstream in(student_id);
  for (std::string id; std::getline(in, id, '+');) {
    if (!id.empty()) ids.push_back(id);
  }
  if (ids.empty()) ids.push_back(student_id);
  return ids;
}

}  // namespace

std::vector<RosterStudent> parse_canvas_roster(std::string_view text, const std::string& file_name) {
  const std::vector<CsvRecord> records = parse_csv(text, file_name);
  if (records.empty()) throw RosterError(fmt::format("{}:1: the file is empty; expected {}", file_name, kExpected));
  const CsvRecord& header = records.front();
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.fields.size(); ++i) column.emplace(trimmed(header.fields[i]), i);
  for (const char* required : {"Student", "SIS User ID"}) {
    if (column.count(required) == 0) {
      throw RosterError(fmt::format("{}:{}: the header has no '{}' column; expected {}", file_name, header.line,
                                    required, kExpected));
    }
  }
  const auto cell = [&](const CsvRecord& record, const char* name) -> std::string {
    const auto found = column.find(name);
    return found == column.end() ? "" : trimmed(record.fields[found->second]);
  };
  std::vector<RosterStudent> students;
  std::map<std::string, std::size_t> first_line;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.fields.size() != header.fields.size()) {
      throw RosterError(fmt::format("{}:{}: {} fields where the header has {}; expected one field per column "
                                    "(a field holding a comma must be quoted)",
                                    file_name, record.line, record.fields.size(), header.fields.size()));
    }
    const std::string name = cell(record, "Student");
    if (name == "Points Possible") continue;  // Canvas's export: the row under the header
    RosterStudent student{name,          cell(record, "ID"),      cell(record, "SIS User ID"),
                          cell(record, "SIS Login ID"), cell(record, "Section"), record.line};
    if (student.sis_user_id.empty()) {
      throw RosterError(fmt::format("{}:{}: student '{}' has no SIS User ID; expected the id the submissions are "
                                    "named by (a folder or archive name, or Gradescope's :sid)",
                                    file_name, record.line, name));
    }
    const auto [previous, inserted] = first_line.emplace(student.sis_user_id, record.line);
    if (!inserted) {
      throw RosterError(fmt::format("{}:{}: SIS User ID '{}' again (first on line {}); expected each student once",
                                    file_name, record.line, student.sis_user_id, previous->second));
    }
    students.push_back(std::move(student));
  }
  if (students.empty()) {
    throw RosterError(fmt::format("{}:{}: no student after the header; expected {}", file_name, header.line,
                                  kExpected));
  }
  return students;
}

std::vector<RosterStudent> read_canvas_roster(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw RosterError(fmt::format("{}: cannot read the roster", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_canvas_roster(text.str(), file.string());
}

CanvasGradebook canvas_gradebook(const std::vector<RosterStudent>& roster, const std::vector<SubmissionRow>& rows,
                                 const std::string& assignment, double points_possible) {
  CanvasGradebook out;
  out.roster_students = roster.size();
  std::map<std::string, const RosterStudent*> by_sis;
  for (const RosterStudent& student : roster) by_sis.emplace(student.sis_user_id, &student);
  std::map<std::string, const SubmissionRow*> submission_of;  // SIS User ID -> the submission naming it
  for (const SubmissionRow& row : rows) {
    for (const std::string& id : member_ids(row.student_id)) {
      if (by_sis.count(id)) {
        submission_of.emplace(id, &row);
      } else {
        out.not_on_roster.push_back({id, row.student_id, row.name, row.status, row.total});
      }
    }
  }

  std::string csv = join({"Student", "ID", "SIS User ID", "SIS Login ID", "Section", quote(assignment)});
  csv += join({"Points Possible", "", "", "", "", csv_points(points_possible)});
  for (const RosterStudent& student : roster) {
    const auto found = submission_of.find(student.sis_user_id);
    std::optional<double> total;
    if (found != submission_of.end()) {
      ++out.matched;
      total = found->second->total;
    } else {
      out.without_submission.push_back(student);
    }
    csv += join({quote(student.name), quote(student.canvas_id), quote(student.sis_user_id),
                 quote(student.sis_login_id), quote(student.section), csv_points(total)});
  }
  out.csv = std::move(csv);

  std::string unmatched = join({"kind", "sis_user_id", "submission", "name", "section", "status", "total"});
  for (const RosterStudent& student : out.without_submission) {
    unmatched += join({"roster student without a submission", csv_field(student.sis_user_id), "",
                       csv_field(student.name), csv_field(student.section), "", ""});
  }
  for (const UnmatchedSubmission& submission : out.not_on_roster) {
    unmatched += join({"submission not on the roster", csv_field(submission.sis_user_id),
                       csv_field(submission.student_id), csv_field(submission.name), "", csv_field(submission.status),
                       csv_points(submission.total)});
  }
  out.unmatched_csv = std::move(unmatched);
  return out;
}

std::string canvas_summary_line(const CanvasGradebook& gradebook) {
  std::string line = fmt::format("canvas.csv: {} of {} roster students matched a submission by SIS User ID",
                                 gradebook.matched, gradebook.roster_students);
  if (!gradebook.without_submission.empty()) {
    line += "; no submission from:";
    for (const RosterStudent& student : gradebook.without_submission) {
      line += fmt::format(" {}{}", student.sis_user_id, student.name.empty() ? "" : " (" + student.name + ")");
      if (&student != &gradebook.without_submission.back()) line += ",";
    }
  }
  if (!gradebook.not_on_roster.empty()) {
    line += "; not on the roster (not in canvas.csv):";
    for (const UnmatchedSubmission& submission : gradebook.not_on_roster) {
      line += fmt::format(" {} ({}{})", submission.sis_user_id, submission.status,
                          submission.total ? ", " + csv_points(submission.total) : "");
      if (&submission != &gradebook.not_on_roster.back()) line += ",";
    }
  }
  if (!gradebook.without_submission.empty() || !gradebook.not_on_roster.empty()) {
    line += "; all listed in canvas_unmatched.csv";
  }
  return line;
}

}  // namespace labgrade::batch
