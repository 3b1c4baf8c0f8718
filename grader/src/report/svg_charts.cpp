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

// A decade as people write it on an axis: 0.01, 1, 100, 10k, 1M.
std::string decade_label(double value) {
  if (value >= 1e6) return fmt::format("{:g}M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:g}k", value / 1e3);
  return fmt::format("{:g}", value);
}

std::string roofline(const std::string& title, double bandwidth_gbs, double compute_gflops,
                     const std::vector<RooflinePoint>& points) {
  constexpr double kLeft = 70, kRight = 20, kTop = kTitleHeight + 8, kPlotHeight = 190;
  const double ridge = compute_gflops / bandwidth_gbs;
  double low = ridge, high = ridge;
  for (const RooflinePoint& point : points) {
    low = std::min(low, point.intensity);
    high = std::max(high, point.intensity);
  }
  // Whole decades around the ridge and every point.
  const double x_min = std::pow(10.0, std::floor(std::log10(low)) - 1);
  const double x_max = std::pow(10.0, std::ceil(std::log10(high)) + 1);
  const double y_max = std::pow(10.0, std::ceil(std::log10(compute_gflops * 1.5)));
  double y_min = std::pow(10.0, std::floor(std::log10(bandwidth_gbs * x_min)));
  for (const RooflinePoint& point : points) y_min = std::min(y_min, std::pow(10.0, std::floor(std::log10(point.gflops))));
  const double width = kWidth - kLeft - kRight;
  const auto x = [&](double v) { return kLeft + width * std::log10(v / x_min) / std::log10(x_max / x_min); };
  const auto y = [&](double v) { return kTop + kPlotHeight * (1 - std::log10(v / y_min) / std::log10(y_max / y_min)); };

  std::string svg = open(kTop + kPlotHeight + kAxisHeight + 16, title);
  for (double decade = x_min; decade <= x_max * 1.001; decade *= 10) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>\n"
                       "<text x=\"{0:.1f}\" y=\"{3:.1f}\" {4} text-anchor=\"middle\">{5}</text>\n",
                       x(decade), kTop, kTop + kPlotHeight, kTop + kPlotHeight + 15, kFont, decade_label(decade));
  }
  for (double decade = y_min; decade <= y_max * 1.001; decade *= 10) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>\n"
                       "<text x=\"{3:.1f}\" y=\"{4:.1f}\" {5} text-anchor=\"end\">{6}</text>\n",
                       kLeft, y(decade), kLeft + width, kLeft - 6, y(decade) + 4, kFont, decade_label(decade));
  }
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} text-anchor=\"middle\">FLOP per byte</text>\n",
                     kLeft + width / 2, kTop + kPlotHeight + 30, kFont);
  svg += fmt::format("<text x=\"12\" y=\"{:.1f}\" {} transform=\"rotate(-90 12 {:.1f})\" "
                     "text-anchor=\"middle\">GFLOP/s</text>\n",
                     kTop + kPlotHeight / 2, kFont, kTop + kPlotHeight / 2);
  // The roofs: memory up to the ridge, compute after it.
  const double start = std::max(x_min, y_min / bandwidth_gbs);
  svg += fmt::format("<polyline points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"none\" stroke=\"#c0392b\" "
                     "stroke-width=\"2\"/>\n",
                     x(start), y(bandwidth_gbs * start), x(ridge), y(compute_gflops), x(x_max), y(compute_gflops));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{:.0f} GB/s</text>\n", x(start) + 14,
                     y(bandwidth_gbs * start) - 10, kFont, bandwidth_gbs);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} text-anchor=\"end\">{:.0f} GFLOP/s</text>\n", x(x_max) - 4,
                     y(compute_gflops) - 6, kFont, compute_gflops);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RooflinePoint& point = points[i];
    // The first label below its point, the others above: two points at one intensity stay legible.
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>\n"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{}</text>\n",
                       x(point.intensity), y(point.gflops), point.color, x(point.intensity) + 8,
                       y(point.gflops) + (i == 0 ? 16 : -8), kFont, text(point.label));
  }
  return svg + "</svg>\n";
}

}  // namespace labgrade::svg
