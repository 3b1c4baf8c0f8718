#include "report/svg_charts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/report_common.hpp"

namespace labgrade::svg {
namespace {

// Layout in SVG user units (pixels at 100% zoom).
constexpr double kWidth = 680;
constexpr double kLabelWidth = 90;   // bar labels, right-aligned
constexpr double kValueWidth = 150;  // value texts after the longest possible bar
constexpr double kPlotWidth = kWidth - kLabelWidth - kValueWidth;
constexpr double kTitleHeight = 22;
constexpr double kRowHeight = 28;
constexpr double kBarHeight = 16;
constexpr double kAxisHeight = 22;
constexpr const char* kFont = "font-family=\"sans-serif\" font-size=\"12\" fill=\"#333\"";

std::string text(std::string_view value) { return markup_escape(value); }

// A round step that gives about four ticks up to `max`.
double tick_step(double max) {
  const double rough = max / 4;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (double factor : {1.0, 2.0, 5.0}) {
    if (factor * power >= rough) return factor * power;
  }
  return 10 * power;
}

std::string open(double height, const std::string& title) {
  return fmt::format(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n"
      "<text x=\"0\" y=\"15\" {3} font-weight=\"bold\">{2}</text>\n",
      kWidth, height, text(title), kFont);
}

}  // namespace

std::string bar_chart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit,
                      Ticks ticks) {
  double max = 0;
  for (const auto& bar : bars) max = std::max({max, bar.value, bar.high});
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  const double step = ticks == Ticks::Whole ? std::max(1.0, tick_step(max)) : tick_step(max);
  const double axis_max = std::ceil(max / step) * step;
  const auto x = [&](double value) { return kLabelWidth + kPlotWidth * std::clamp(value, 0.0, axis_max) / axis_max; };
  const double plot_bottom = kTitleHeight + kRowHeight * static_cast<double>(bars.size());

  std::string svg = open(plot_bottom + kAxisHeight, title);
  // Grid lines and tick labels first, so bars are drawn over them.
  for (double tick = 0; tick <= axis_max * (1 + 1e-9); tick += step) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" {4} text-anchor=\"middle\">{5:g}{6}</text>\n",
        x(tick), kTitleHeight, plot_bottom, plot_bottom + 15, kFont, tick, tick > 0 ? " " + text(unit) : "");
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    const double top = kTitleHeight + kRowHeight * static_cast<double>(i) + (kRowHeight - kBarHeight) / 2;
    const double middle = top + kBarHeight / 2;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} text-anchor=\"end\">{}</text>\n", kLabelWidth - 8,
                       middle + 4, kFont, text(bar.label));
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n", kLabelWidth,
                       top, x(bar.value) - kLabelWidth, kBarHeight, text(bar.color));
    if (bar.high > bar.low) {
      // The confidence interval: a line with end caps.
      svg += fmt::format(
          "<path d=\"M{0:.1f} {1:.1f}H{2:.1f}M{0:.1f} {3:.1f}V{4:.1f}M{2:.1f} {3:.1f}V{4:.1f}\" stroke=\"#222\" "
          "stroke-width=\"1.5\" fill=\"none\"/>\n",
          x(bar.low), middle, x(bar.high), top + 3, top + kBarHeight - 3);
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{}</text>\n", std::max(x(bar.value), x(bar.high)) + 6,
                       middle + 4, kFont, text(bar.value_text));
  }
  return svg + "</svg>\n";
}

std::string peak_bar(const std::string& title, double achieved, double peak, const std::string& unit) {
  const double track = std::max(achieved, peak);
  const auto x = [&](double value) { return kLabelWidth + kPlotWidth * (track > 0 ? value / track : 0); };
  const double top = kTitleHeight + (kRowHeight - kBarHeight) / 2;
  const double middle = top + kBarHeight / 2;
  const double percent = peak > 0 ? 100 * achieved / peak : 0;

  std::string svg = open(kTitleHeight + kRowHeight + kAxisHeight, title);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} text-anchor=\"end\">{:.1f}%</text>\n", kLabelWidth - 8,
                     middle + 4, kFont, percent);
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"#e6e6e6\"/>\n", kLabelWidth,
                     top, x(track) - kLabelWidth, kBarHeight);
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"#4c78a8\"/>\n", kLabelWidth,
                     top, x(achieved) - kLabelWidth, kBarHeight);
  // The ceiling, marked even when the bar passes it.
  svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#c0392b\" "
                     "stroke-width=\"2\"/>\n",
                     x(peak), top - 3, top + kBarHeight + 3);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{:.0f} of {:.0f} {}</text>\n", x(track) + 6, middle + 4,
                     kFont, achieved, peak, text(unit));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} text-anchor=\"end\">peak {:.0f} {}</text>\n",
                     x(peak), top + kBarHeight + 15, kFont, peak, text(unit));
  return svg + "</svg>\n";
}

}  // namespace labgrade::svg
