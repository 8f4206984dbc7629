// shardplan._core: the C++ library in-process for Python (python/shardplan/__init__.py
// wraps it). The same lib entry points as the CLI's plan / enumerate / explain
// commands; results are the CLI's JSON documents, built from the renderers'
// nlohmann trees straight into Python objects (no text, no files, no subprocess).
// Errors are raised as shardplan.InputError / shardplan.PlannerError, defined in
// python/shardplan/_errors.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <new>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/names.h"
#include "common/out_of_memory.h"
#include "common/thread_pool.h"
#include "config/canonical_input.h"
#include "config/loader.h"
#include "config/planner_overrides.h"
#include "planner/advice/table_explanation.h"
#include "planner/advice/torchrec_failures.h"
#include "planner/bounds/bottleneck.h"
#include "planner/enumerator.h"
#include "planner/memory_basis.h"
#include "planner/rank_load.h"
#include "planner/run.h"
#include "planner/topology.h"
#include "planner_output/bound_report.h"
#include "planner_output/explained_memory.h"
#include "planner_output/explanation_output.h"
#include "planner_output/failure_text.h"
#include "planner_output/options_json.h"
#include "planner_output/plan_json.h"
#include "planner_output/run_summary.h"
#include "planner_output/stats_json.h"
#include "planner_output/stats_text.h"

namespace py = pybind11;

namespace shardplan::python {
namespace {

// ---- JSON trees to Python objects (dicts keep the renderers' key order) ----

template <typename Json>
py::object py_from_json(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.template get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.template get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.template get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.template get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.template get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out(j.size());
      std::size_t i = 0;
      for (const auto& item : j) out[i++] = py_from_json(item);
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (auto it = j.begin(); it != j.end(); ++it) out[py::str(it.key())] = py_from_json(it.value());
      return out;
    }
    default:
      return py::none();  // binary and discarded values: the renderers make none
  }
}

// A Python document (dicts, lists, str, int, float, bool, None) as an ordered JSON
// tree, so that dumps() renders it with the CLI's own number formatting.
nlohmann::ordered_json json_from_py(py::handle value) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    try {
      return value.cast<std::int64_t>();
    } catch (const py::cast_error&) {
      return value.cast<std::uint64_t>();
    }
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    nlohmann::ordered_json out(nlohmann::ordered_json::value_t::object);
    for (auto item : py::reinterpret_borrow<py::dict>(value)) {
      if (!py::isinstance<py::str>(item.first))
        throw py::type_error("dumps: keys must be strings, found " +
                             std::string(py::str(py::type::of(item.first).attr("__name__"))));
      out[item.first.cast<std::string>()] = json_from_py(item.second);
    }
    return out;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::ordered_json out(nlohmann::ordered_json::value_t::array);
    for (auto item : value) out.push_back(json_from_py(item));
    return out;
  }
  throw py::type_error("dumps: cannot write a " + std::string(py::str(py::type::of(value).attr("__name__"))) +
                       " as JSON");
}

std::string dumps(py::handle document) { return json_from_py(document).dump(2) + "\n"; }

// ---- errors as the package's exception classes ----

[[noreturn]] void raise_python(const char* class_name, py::dict fields) {
  py::object cls = py::module_::import("shardplan._errors").attr(class_name);
  py::object error = cls(**fields);
  PyErr_SetObject(cls.ptr(), error.ptr());
  throw py::error_already_set();
}

[[noreturn]] void raise_input_error(const InputError& e) {
  py::list diagnostics;
  for (const Diagnostic& d : e.diagnostics()) {
    py::dict one;
    one["file"] = d.pos.file;
    one["line"] = d.pos.line;
    one["col"] = d.pos.col;
    one["key_path"] = d.key_path;
    one["message"] = d.message;
    diagnostics.append(one);
  }
  py::dict fields;
  fields["message"] = e.diagnostics().empty() ? std::string(e.what()) : e.format();
  fields["diagnostics"] = diagnostics;
  raise_python("InputError", fields);
}

[[noreturn]] void raise_planner_error(const PlanRun& run) {
  const nlohmann::ordered_json failure = failure_json(run);
  py::dict fields;
  fields["message"] = explain_failure(run);
  fields["kind"] = failure.value("kind", std::string("OTHER"));
  fields["stage"] = failure.value("stage", std::string());
  fields["fixes"] = failure_fixes(run);
  raise_python("PlannerError", fields);
}

// Runs `body` with the GIL released and the library's exceptions turned into the
// package's; `body` returns the JSON tree, converted once the GIL is back.
template <typename Body>
auto without_gil(Body body) {
  try {
    py::gil_scoped_release release;
    return body();
  } catch (const InputError& e) {
    raise_input_error(e);
  } catch (const OutOfMemoryError& e) {
    PyErr_SetString(PyExc_MemoryError, out_of_memory_message(e.stage()).c_str());
    throw py::error_already_set();
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "out of memory while planning");
    throw py::error_already_set();
  }
}

// ---- inputs: what the keyword arguments name ----

// `source` (built by __init__.py): {"text", "name"} for a config given as a dict,
// {"config"} for a case file, or {"model", "topology", "planner"?} for three files.
struct InputSource {
  std::string text, name, config, model, topology, planner;
};

InputSource source_of(const py::dict& source) {
  InputSource s;
  auto get = [&](const char* key, std::string& into) {
    if (source.contains(key) && !source[key].is_none()) into = py::cast<std::string>(source[key]);
  };
  get("text", s.text);
  get("name", s.name);
  get("config", s.config);
  get("model", s.model);
  get("topology", s.topology);
  get("planner", s.planner);
  return s;
}

PlannerOverrides overrides_of(const py::dict& options) {
  PlannerOverrides o;
  auto text = [&](const char* key, std::string& into) {
    if (options.contains(key) && !options[key].is_none()) into = py::cast<std::string>(options[key]);
  };
  auto optional = [&](const char* key, auto& into) {
    using Value = typename std::remove_reference_t<decltype(into)>::value_type;
    if (options.contains(key) && !options[key].is_none()) into = py::cast<Value>(options[key]);
  };
  text("partitioner", o.partitioner);
  text("proposers", o.proposers);
  text("storage_reservation", o.storage_reservation);
  optional("reservation_percentage", o.reservation_percentage);
  text("sort_by", o.sort_by);
  optional("greedy_threshold", o.greedy_threshold);
  optional("time_budget", o.time_budget);
  optional("batch_size", o.batch_size);
  optional("world_size", o.world_size);
  optional("local_world_size", o.local_world_size);
  text("hbm_cap", o.hbm_cap);
  text("ddr_cap", o.ddr_cap);
  return o;
}

// Loads the inputs (no GIL needed) exactly as the CLI's --config / --model flags do.
PlanningInput load_source(const InputSource& s, const PlannerOverrides& overrides) {
  PlanningInput input;
  if (!s.text.empty()) {
    input = load_case_text(s.name, s.text);
  } else if (!s.config.empty()) {
    input = load_case(s.config);
  } else {
    std::optional<std::string> planner;
    if (!s.planner.empty()) planner = s.planner;
    input = load_inputs(s.model, s.topology, planner);
  }
  apply_planner_overrides(overrides, input);
  return input;
}

// ---- plan ----

struct PlanOutcome {
  std::optional<PlanRun> run;  // kept for the failure
  nlohmann::ordered_json plan;
  std::string stats;    // --stats torchrec text ("" where torchrec logs none)
  std::string summary;  // --stats summary lines
};

// The plan file's tree (plan_json.h), the one plan_file_text dumps.
nlohmann::ordered_json plan_tree(const PlanRun& run, const PlanningInput& input) {
  return plan_file_json(run, input.model.name, inputs_sha256(input), canonical_input_text(input));
}

// `destination` ends the summary ("plan written to ..."), as the CLI's -o FILE does.
py::tuple plan(const py::dict& source, const py::dict& options, int threads, bool want_stats,
               const std::string& destination) {
  if (threads < 0)
    raise_input_error(InputError(SourcePos{}, "threads", "expected 0 or more, found " + std::to_string(threads)));
  const InputSource s = source_of(source);
  const PlannerOverrides overrides = overrides_of(options);
  PlanOutcome outcome = without_gil([&] {
    PlanOutcome out;
    const PlanningInput input = load_source(s, overrides);
    ThreadPool pool(threads);
    const Parallelism parallelism{&pool};
    PlanRun run = run_plan(input, parallelism);
    if (want_stats && torchrec_logs_stats(run)) {
      const StatsReport report = stats_report_of(run, input);
      out.stats = render_stats_text(report);
      if (run.ok()) out.summary = render_summary_text(summarize_run(run, report, destination));
    } else if (want_stats && run.ok()) {
      out.summary = render_summary_text(summarize_run(run, StatsReport{}, destination));
    }
    if (run.ok()) out.plan = plan_tree(run, input);
    out.run = std::move(run);
    return out;
  });
  if (!outcome.run->ok()) raise_planner_error(*outcome.run);
  return py::make_tuple(py_from_json(outcome.plan), outcome.stats, outcome.summary);
}

// ---- enumerate ----

py::object enumerate_options(const py::dict& source, const py::dict& options) {
  const InputSource s = source_of(source);
  const PlannerOverrides overrides = overrides_of(options);
  std::optional<std::string> enumeration_error;
  nlohmann::json tree = without_gil([&] {
    const PlanningInput input = load_source(s, overrides);
    const Topology topology = build_topology(input.topology);
    try {
      ThreadPool pool;
      return options_to_json(enumerate_and_estimate(input, topology, Parallelism{&pool}));
    } catch (const EnumerationError& e) {
      enumeration_error = e.what();
      return nlohmann::json();
    }
  });
  if (enumeration_error) {
    py::dict fields;
    fields["message"] = "no sharding option: " + *enumeration_error + "\n";
    fields["kind"] = "NO_SHARDING_OPTION";
    fields["stage"] = "enumeration";
    fields["fixes"] = py::list();
    raise_python("PlannerError", fields);
  }
  return py_from_json(tree);
}

// ---- explain ----

// The fqn `table` names: an fqn, or a table name only one module holds.
std::string explained_fqn(const std::string& asked, const std::vector<std::string>& fqns) {
  std::string found;
  int matches = 0;
  for (const auto& fqn : fqns) {
    if (fqn == asked) return fqn;
    if (fqn.size() > asked.size() && fqn.compare(fqn.size() - asked.size(), asked.size(), asked) == 0 &&
        fqn[fqn.size() - asked.size() - 1] == '.') {
      found = fqn;
      ++matches;
    }
  }
  if (matches == 1) return found;
  throw InputError(SourcePos{}, "table", unknown_name_message("table", asked, fqns, "tables"));
}

py::object explain(const py::dict& source, const py::dict& options, const std::string& table) {
  const InputSource s = source_of(source);
  const PlannerOverrides overrides = overrides_of(options);
  std::optional<PlanRun> failed;
  nlohmann::json tree = without_gil([&] {
    const PlanningInput input = load_source(s, overrides);
    ThreadPool pool;
    OptionVerdictRecorder recorder;
    PlanRun run = run_plan(input, Parallelism{&pool}, &recorder);
    if (run.enumeration_error) {
      failed = std::move(run);
      return nlohmann::json();
    }
    std::vector<std::string> fqns;
    if (!table.empty())
      fqns.push_back(explained_fqn(table, table_fqns(run.search_space.enumerated())));
    else if (run.ok())
      throw InputError(SourcePos{}, "table", "name the table to explain (the model has a feasible plan)");
    else
      for (const auto& t : run.result.failure->tables) fqns.push_back(t.fqn);
    std::vector<TableExplanation> explained;
    for (const auto& fqn : fqns)
      explained.push_back(explain_table({run.result, run.search_space, run.topology, run.ok()}, input, recorder, fqn));
    nlohmann::json json = explanations_to_json(explained);
    const bool has_plan = run.ok() && !run.result.plan.empty();
    if (has_plan) {
      const Bottleneck bottleneck = find_bottleneck(run.result.plan, run.topology.world_size);
      json["bottleneck"] = nlohmann::json::parse(bottleneck_json(bottleneck).dump());
      if (run.bound) json["lower_bound"] = nlohmann::json::parse(bound_json(*run.bound, run.result.perf_rating).dump());
      // Memory use on the one basis, as `explain --format json` gives it.
      if (run.result.reservation)
        json["memory"] = explained_memory_json(
            explained,
            rank_memory(run.topology, *run.result.reservation, rank_loads(run.result.plan, run.topology.world_size)));
    }
    if (!run.ok()) failed = std::move(run);
    return json;
  });
  if (failed && failed->enumeration_error) raise_planner_error(*failed);
  py::object result = py_from_json(tree);
  if (failed) {
    // No feasible plan: the explanation still comes back, on the error.
    const nlohmann::ordered_json failure = failure_json(*failed);
    py::dict fields;
    fields["message"] = explain_failure(*failed);
    fields["kind"] = failure.value("kind", std::string("OTHER"));
    fields["stage"] = failure.value("stage", std::string());
    fields["fixes"] = failure_fixes(*failed);
    fields["explanation"] = result;
    raise_python("PlannerError", fields);
  }
  return result;
}

}  // namespace
}  // namespace shardplan::python

PYBIND11_MODULE(_core, m) {
  using namespace shardplan::python;
  m.doc() = "shardplan's C++ library in-process (use the shardplan package, not this module)";
  m.attr("version") = SHARDPLAN_VERSION;
  m.def("plan", &plan, py::arg("source"), py::arg("options"), py::arg("threads") = 0, py::arg("stats") = false,
        py::arg("destination") = "the returned dict",
        "Plans; returns (plan file dict, torchrec stats text, summary text).");
  m.def("dumps", &dumps, py::arg("document"), "The text the CLI writes for a document (2-space JSON and a newline).");
  m.def("enumerate", &enumerate_options, py::arg("source"), py::arg("options"),
        "Every sharding option with its estimates (the enumerate command's JSON).");
  m.def("explain", &explain, py::arg("source"), py::arg("options"), py::arg("table") = "",
        "Why a table got its option (the explain command's JSON).");
}
