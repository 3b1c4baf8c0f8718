#pragma once
// Small charts as inline SVG for the HTML report: drawn here so the report needs no script,
// library or network to show them.
#include <string>
#include <vector>

namespace labgrade::svg {

struct Bar {
  std::string label;       // left of the bar
  double value = 0;        // the bar's length, in the chart's unit
  double low = 0;          // whisker from low to high: the confidence interval; none when equal
  double high = 0;
  std::string value_text;  // right of the bar
  std::string color;       // CSS colour
};

// Whether the axis may show fractions (times) or counts things (submissions: never "0.5").
enum class Ticks { Any, Whole };

// Horizontal bars on one linear axis starting at 0, its ticks labelled in `unit`.
std::string bar_chart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit,
                      Ticks ticks = Ticks::Any);

// "Roofline-style": `achieved` as a filled bar inside a track as long as `peak` (the device's
// measured ceiling), labelled with the fraction of peak. The track grows when achieved > peak.
std::string peak_bar(const std::string& title, double achieved, double peak, const std::string& unit);

// A roofline on log-log axes: the memory roof (GB/s times FLOP per byte) up to the ridge, the
// compute roof after it, and each point (arithmetic intensity, achieved GFLOP/s).
struct RooflinePoint {
  std::string label;
  double intensity = 0;  // FLOP per byte, > 0
  double gflops = 0;     // > 0
  std::string color;
};
std::string roofline(const std::string& title, double bandwidth_gbs, double compute_gflops,
                     const std::vector<RooflinePoint>& points);

}  // namespace labgrade::svg
