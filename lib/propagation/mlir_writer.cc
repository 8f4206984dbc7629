#include "propagation/mlir_writer.h"

#include <algorithm>
#include <tuple>

namespace shardplan::propagation {

namespace {

// One replacement of text[begin, end) by `text` (an insertion when begin == end).
struct MlirTextEdit {
  std::size_t begin = 0, end = 0;
  std::string text;
};

std::string sdy_axis_text(const AxisRef& axis, const Mesh& mesh) {
  std::string out = "\"" + mesh.axes[axis.axis].name + "\"";
  if (!axis.full()) out += ":(" + std::to_string(axis.pre) + ")" + std::to_string(axis.size);
  return out;
}

// A tensor that nothing ever sharded: every dim open and empty, nothing replicated.
bool never_sharded(const TensorSharding& s) {
  if (!s.replicated.empty()) return false;
  return std::all_of(s.dims.begin(), s.dims.end(), [](const DimSharding& d) { return !d.closed && d.axes.empty(); });
}

void add_site_edit(const MlirShardingSite& site, const std::string& sharding, std::vector<MlirTextEdit>& edits) {
  using Form = MlirShardingSite::Form;
  std::string value = site.form == Form::kPerValue ? "#sdy.sharding_per_value<[" + sharding + "]>"
                      : site.form == Form::kTensor ? "#sdy.sharding" + sharding
                                                   : sharding;
  if (site.value_begin != MlirShardingSite::kNone) {
    edits.push_back({site.value_begin, site.value_end, value});
  } else if (site.dict_close != MlirShardingSite::kNone) {
    edits.push_back(
        {site.dict_close, site.dict_close, (site.dict_empty ? "" : ", ") + std::string("sdy.sharding = ") + value});
  } else if (site.type_begin != MlirShardingSite::kNone) {
    edits.push_back({site.type_begin, site.type_begin, "("});
    edits.push_back({site.type_end, site.type_end, " {sdy.sharding = " + value + "})"});
  } else if (site.insert != MlirShardingSite::kNone) {
    // Before an op's ':' the dict comes first; after a function argument's type it follows.
    if (site.form == Form::kPerValue)
      edits.push_back({site.insert, site.insert, "{sdy.sharding = " + value + "} "});
    else
      edits.push_back({site.insert, site.insert, " {sdy.sharding = " + value + "}"});
  }
}

}  // namespace

std::string sdy_sharding_text(const TensorSharding& sharding, const Mesh& mesh, const std::string& mesh_name) {
  std::string out = "<" + mesh_name + ", [";
  for (std::size_t d = 0; d < sharding.dims.size(); ++d) {
    const DimSharding& dim = sharding.dims[d];
    out += d ? ", {" : "{";
    for (std::size_t i = 0; i < dim.axes.size(); ++i) out += (i ? ", " : "") + sdy_axis_text(dim.axes[i], mesh);
    if (!dim.closed) out += dim.axes.empty() ? "?" : ", ?";
    out += "}";
  }
  out += "]";
  if (!sharding.replicated.empty()) {
    out += ", replicated={";
    for (std::size_t i = 0; i < sharding.replicated.size(); ++i)
      out += (i ? ", " : "") + sdy_axis_text(sharding.replicated[i], mesh);
    out += "}";
  }
  return out + ">";
}

std::string render_mlir(const PropagationDriver& driver) {
  const Program& program = driver.program();
  const MlirSource& source = *program.mlir;
  const PropagationState& state = driver.state();
  std::vector<MlirTextEdit> edits;
  for (std::size_t t = 0; t < program.tensors.size(); ++t) {
    const TensorSharding& s = state.shardings[t];
    std::string text = sdy_sharding_text(s, program.mesh, source.mesh_name);
    for (const MlirShardingSite& site : source.tensor_sites[t]) {
      bool written = site.value_begin != MlirShardingSite::kNone;
      if (!written && never_sharded(s)) continue;
      add_site_edit(site, text, edits);
    }
  }
  for (std::size_t i = 0; i < program.outputs.size(); ++i) {
    if (state.output_shardings[i]) {
      add_site_edit(source.output_sites[i],
                    sdy_sharding_text(*state.output_shardings[i], program.mesh, source.mesh_name), edits);
      continue;
    }
    // A result without a sharding of its own: Shardy's sync of the returned value into
    // the function result creates one, open everywhere (the result had no closed dims),
    // with the value's axes; none when the value has no axes on any dim.
    TensorSharding result = state.shardings[program.outputs[i].tensor];
    result.replicated.clear();
    bool any_axes = false;
    for (DimSharding& d : result.dims) {
      d.closed = false;
      any_axes = any_axes || !d.axes.empty();
    }
    if (any_axes)
      add_site_edit(source.output_sites[i], sdy_sharding_text(result, program.mesh, source.mesh_name), edits);
  }
  // Insertions at one position keep their order (a bare result's "(" before its type...).
  std::stable_sort(edits.begin(), edits.end(),
                   [](const MlirTextEdit& a, const MlirTextEdit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(source.text.size() + edits.size() * 64);
  std::size_t at = 0;
  for (const MlirTextEdit& e : edits) {
    if (e.begin < at) continue;  // two sites on one range (cannot happen; never write twice)
    out.append(source.text, at, e.begin - at);
    out += e.text;
    at = e.end;
  }
  out.append(source.text, at, std::string::npos);
  return out;
}

}  // namespace shardplan::propagation
