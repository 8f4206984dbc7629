#include "common/chart_scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace shardplan {

AxisTicks round_ticks(double low, double high, int max_ticks) {
  AxisTicks out;
  if (!(high > low)) high = low + 1;
  max_ticks = std::max(max_ticks, 1);
  const double raw = (high - low) / max_ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw * (1 - 1e-9)) break;
  }
  out.step = step;
  out.low = std::floor(low / step + 1e-9) * step;
  out.high = std::ceil(high / step - 1e-9) * step;
  const int count = static_cast<int>(std::lround((out.high - out.low) / step));
  for (int i = 0; i <= count; ++i) {
    double tick = out.low + i * step;
    if (std::fabs(tick) < step * 1e-9) tick = 0;  // no "-0"
    out.ticks.push_back(tick);
  }
  return out;
}

std::string tick_label(double value, double step) {
  const double magnitude = std::max(std::fabs(value), step);
  if (magnitude >= 1e7 || (magnitude > 0 && magnitude < 1e-4)) return fmt::format("{:.3g}", value);
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", value, std::min(decimals, 6));
}

std::string short_number(double value, int significant) {
  const double magnitude = std::fabs(value);
  if (value == 0) return "0";
  if (magnitude < 1e-4 || magnitude >= 1e9) return fmt::format("{:.{}g}", value, significant);
  const int digits_before = static_cast<int>(std::floor(std::log10(magnitude))) + 1;
  const int decimals = std::max(0, significant - digits_before);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string markup_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace shardplan
