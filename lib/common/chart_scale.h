// Helpers the hand-written SVG charts share (the plan report, the sweep plot): round
// axis ticks, compact numbers and HTML/XML escaping.
#pragma once

#include <string>
#include <vector>

namespace shardplan {

// An axis from 0 (or `low`) to a round top, with round ticks in 1-2-5 steps.
struct AxisTicks {
  double low = 0;
  double high = 1;            // the axis' top: the last tick, >= the data's maximum
  std::vector<double> ticks;  // low, low + step, ..., high
  double step = 1;
};

// Round ticks covering [low, high] with at most about `max_ticks` intervals: the step
// is 1, 2 or 5 times a power of ten, the ends are multiples of the step. An empty or
// degenerate range (high <= low) gets the unit range above low.
AxisTicks round_ticks(double low, double high, int max_ticks = 5);

// A tick label: the value with as many decimals as the step needs ("0.25", "40", "1e+06"
// for very large or very small values), never a 17-digit float.
std::string tick_label(double value, double step);

// `value` with `significant` significant digits, no exponent for 1e-4 <= |value| < 1e9.
std::string short_number(double value, int significant = 4);

// Escapes & < > " for HTML/XML text and attributes.
std::string markup_escape(const std::string& text);

}  // namespace shardplan
