// `serialcheck dis`, `decode` and `encode`: the reference codec from the shell.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "reference/device/device.h"
#include "reference/frames/family.h"
#include "reference/frames/header_json.h"
#include "reference/frames/wire.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/disasm.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/target.h"
#include "reference/value/json.h"
#include "suite/cli/commands.h"

namespace serialcheck::cli {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void write_stdout(std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

// Every line after the first indented by two spaces, for nesting pretty JSON.
std::string indented(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

bool looks_like_packed_message(const std::string& data) {
  try {
    (void)unpack_message(byte_span(data));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// `decode --message`: a packed message (distributed's serialize_bytes) to
// {"header": ..., "value": <canonical JSON>}.
int decode_message(const std::string& data, const std::vector<std::string>& allow,
                   const std::string& device, int max_protocol, const pickle::Limits& limits,
                   bool pretty) {
  families::DeserializeOptions options;
  if (!allow.empty()) options.allowed = allow;
  options.max_protocol = max_protocol;
  options.limits = limits;
  Message message;
  Graph graph;
  try {
    message = unpack_message(byte_span(data));
    if (!device.empty()) options.device = device::open_device(device);
    families::deserialize(message, graph, options);
  } catch (const Error& e) {
    return fail(e.what());
  }
  const nlohmann::json header = header_to_text_json(message.header);
  if (pretty) {
    std::cout << "{\n  \"header\": " << indented(header.dump(2))
              << ",\n  \"value\": " << indented(to_json(graph.root, true)) << "\n}\n";
  } else {
    std::cout << "{\"header\":" << header.dump() << ",\"value\":" << to_json(graph.root) << "}\n";
  }
  return kExitOk;
}

// `encode --message`: serialize() with the given families, negotiated down
// to `protocol`, then pack_message(). Device frames are copied to the host
// (a file holds no device memory).
int encode_message(const Node* root, const std::vector<std::string>& family_names,
                   const std::string& compression, int protocol, const std::string& output) {
  families::SerializeOptions options;
  options.serializers = family_names;
  options.peer_max_protocol = protocol;
  options.on_error = families::OnError::Raise;
  std::string packed;
  try {
    Message message = families::serialize(root, options);
    for (Frame& frame : message.frames) {
      if (frame.on_device()) frame = to_host(frame);
    }
    PackOptions pack;
    pack.compression.codec = *parse_compression(compression);
    packed = pack_message(message, pack);
  } catch (const Error& e) {
    return fail(e.what());
  }
  if (output == "-") {
    write_stdout(packed);
  } else {
    std::ofstream out(output, std::ios::binary);
    out.write(packed.data(), static_cast<std::streamsize>(packed.size()));
    if (!out) return fail("cannot write " + output);
  }
  return kExitOk;
}


// ---- where in the JSON an encode error lies ---------------------------------
// The encoder reports an offset into the pickle it was writing, which means
// nothing to someone holding JSON. The value's JSON layout is known
// (docs/value-json.md), so the walk below finds the node and names it by a
// JSON pointer. It visits each node once, in the order the JSON writer
// does, and does not descend into a node it has seen (a {"ref": n}).

// Encode's default limit on JSON nesting: half of decode's limit on marks
// open at once, since a level of nesting opens at most two marks (a reduce's
// argument tuple and an APPENDS/SETITEMS batch; reference/pickle/limits.h).
// So every pickle encode writes under its defaults, decode reads under its.
constexpr std::size_t kEncodeMaxDepth = pickle::Limits{}.max_depth / 2;

struct PathStep {
  const Node* node;
  std::string segment;  // "/list/3", "/object/args"
};

// The children of `n` as the JSON writer nests them, with their segments.
std::vector<std::pair<const Node*, std::string>> json_children(const Node* n) {
  std::vector<std::pair<const Node*, std::string>> out;
  auto items = [&](std::string_view tag) {
    for (std::size_t i = 0; i < n->items.size(); ++i) {
      out.emplace_back(n->items[i], fmt::format("/{}/{}", tag, i));
    }
  };
  switch (n->kind) {
    case Kind::List: items("list"); break;
    case Kind::Tuple: items("tuple"); break;
    case Kind::Set: items("set"); break;
    case Kind::FrozenSet: items("frozenset"); break;
    case Kind::Dict:
      for (std::size_t i = 0; i + 1 < n->items.size(); i += 2) {
        out.emplace_back(n->items[i], fmt::format("/dict/{}/0", i / 2));
        out.emplace_back(n->items[i + 1], fmt::format("/dict/{}/1", i / 2));
      }
      break;
    case Kind::PersId:
      if (!n->items.empty()) out.emplace_back(n->items[0], "/persid");
      break;
    case Kind::Object: {
      if (!n->obj()) break;
      const ObjectParts& o = *n->obj();
      if (o.callable) out.emplace_back(o.callable, "/object/callable");
      if (o.args) out.emplace_back(o.args, "/object/args");
      if (o.state) out.emplace_back(o.state, "/object/state");
      if (o.state_setter) out.emplace_back(o.state_setter, "/object/state_setter");
      for (std::size_t i = 0; i < o.listitems.size(); ++i) {
        out.emplace_back(o.listitems[i], fmt::format("/object/listitems/{}", i));
      }
      for (std::size_t i = 0; i < o.dictitems.size(); ++i) {
        out.emplace_back(o.dictitems[i].first, fmt::format("/object/dictitems/{}/0", i));
        out.emplace_back(o.dictitems[i].second, fmt::format("/object/dictitems/{}/1", i));
      }
      break;
    }
    default: break;  // scalars, and domain values (their own small forms)
  }
  return out;
}

// A JSON pointer fit for one line: a very deep one keeps its two ends.
std::string shown_pointer(const std::vector<PathStep>& path) {
  std::string full;
  for (const PathStep& step : path) full += step.segment;
  if (full.empty()) return "/ (the root)";
  constexpr std::size_t kHead = 80, kTail = 80;
  if (full.size() <= kHead + kTail + 40) return full;
  return fmt::format("{}...{} ({} levels deep)", full.substr(0, kHead),
                     full.substr(full.size() - kTail), path.size());
}

// Walks the value depth first; `visit(path)` for each node reached the first
// time (path.back() is the node) returns true to stop there. Returns whether
// it stopped. Iterative: a value nested 100,000 deep takes no stack.
template <class Visit>
bool walk_json(const Node* root, Visit visit) {
  std::unordered_set<const Node*> seen;
  std::vector<PathStep> path;
  // Each frame: the node's children and the next one to enter.
  std::vector<std::pair<std::vector<std::pair<const Node*, std::string>>, std::size_t>> frames;
  auto enter = [&](const Node* n, std::string segment) {
    path.push_back({n, std::move(segment)});
    if (visit(path)) return true;
    // A node seen before is a {"ref": n} in the JSON: nothing below it.
    const bool first = n != nullptr && (is_atom(n->kind) || seen.insert(n).second);
    frames.emplace_back(first ? json_children(n)
                              : std::vector<std::pair<const Node*, std::string>>{},
                        0);
    return false;
  };
  if (enter(root, "")) return true;
  while (!frames.empty()) {
    auto& [children, next] = frames.back();
    if (next == children.size()) {
      frames.pop_back();
      path.pop_back();
      continue;
    }
    auto [child, segment] = std::move(children[next++]);
    if (enter(child, std::move(segment))) return true;
  }
  return false;
}

// The containers of the path (the JSON objects and arrays that nest).
bool is_container(const Node* n) {
  switch (n->kind) {
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set:
    case Kind::FrozenSet:
    case Kind::Dict:
    case Kind::Object:
    case Kind::PersId: return true;
    default: return false;
  }
}

// The first node nested deeper than `max_depth` containers, as an error line.
std::optional<std::string> too_deep(const Node* root, std::size_t max_depth) {
  std::string where;
  // Containers on the path, counted as the walk goes down and up.
  std::vector<std::size_t> depth_at{0};
  walk_json(root, [&](const std::vector<PathStep>& path) {
    depth_at.resize(path.size());
    const std::size_t above = path.size() >= 2 ? depth_at[path.size() - 2] : 0;
    const Node* n = path.back().node;
    depth_at.back() = above + (n != nullptr && is_container(n) ? 1 : 0);
    if (depth_at.back() <= max_depth) return false;
    where = shown_pointer(path);
    return true;
  });
  if (where.empty()) return std::nullopt;
  return fmt::format(
      "limit-exceeded at {}: the value nests containers more than {} deep "
      "(encode --max-depth)",
      where, max_depth);
}

// The node an encoder error comes from: the first scalar (or persistent id)
// that fails the same way when encoded alone. Each is encoded once, so the
// search is linear in the value. Errors of a container's shape are not
// found this way; nullopt then.
std::optional<std::string> locate_encode_error(const Node* root, const pickle::EncodeOptions& options,
                                               const pickle::PickleError& error) {
  std::optional<std::string> where;
  walk_json(root, [&](const std::vector<PathStep>& path) {
    const Node* n = path.back().node;
    if (n == nullptr || (is_container(n) && n->kind != Kind::PersId) || n == root) return false;
    switch (n->kind) {
      case Kind::None:
      case Kind::Bool:
      case Kind::Float: return false;
      default: break;
    }
    try {
      (void)pickle::encode(n, options);
    } catch (const pickle::PickleError& e) {
      if (e.kind() == error.kind() && e.detail() == error.detail()) {
        where = shown_pointer(path);
        return true;
      }
    }
    return false;
  });
  return where;
}

int encode_failure(const Node* root, const pickle::EncodeOptions& options,
                   const pickle::PickleError& e) {
  const std::string kind(pickle::error_kind_name(e.kind()));
  if (const auto where = locate_encode_error(root, options, e)) {
    return fail(fmt::format("{} at {}: {}", kind, *where, e.detail()));
  }
  return fail(fmt::format("{}: {} (while writing byte {} of the pickle)", kind, e.detail(),
                          e.offset()));
}

}  // namespace

// The decoder's limit options, shared by decode and dis.
void add_limit_options(CLI::App* cmd, pickle::Limits& limits) {
  cmd->add_option("--max-depth", limits.max_depth, "Limit: marks open at once")
      ->capture_default_str();
  cmd->add_option("--max-memo", limits.max_memo, "Limit: memo entries and largest memo key")
      ->capture_default_str();
  cmd->add_option("--alloc-per-byte", limits.alloc_per_input_byte,
                  "Limit: bytes the decoder may allocate per input byte")
      ->capture_default_str();
  cmd->add_option("--alloc-constant", limits.alloc_constant,
                  "Limit: bytes the decoder may allocate beyond the per-byte allowance")
      ->capture_default_str();
}

// The disassembly cut at the decoder's first limit error, when the decoder
// meets one before the disassembler stops: a limit on what decoding would
// allocate is one the disassembler cannot see by itself.
void apply_decoder_limits(const std::string& data, const pickle::Limits& limits,
                          pickle::Disassembly& d) {
  pickle::DecodeOptions options;
  options.limits = limits;
  options.stand_in_buffers = true;  // the buffers are not at hand, nor needed
  Graph graph;
  try {
    (void)pickle::decode(as_bytes(data), graph, options);
  } catch (const pickle::PickleError& e) {
    if (e.kind() != pickle::ErrorKind::LimitExceeded) return;
    if (!d.error.empty() && d.error_offset <= e.offset()) return;
    while (!d.instructions.empty() && d.instructions.back().offset > e.offset()) {
      d.instructions.pop_back();
    }
    d.error = e.what();
    d.error_offset = e.offset();
    d.error_kind = e.kind();
    d.error_detail = e.detail();
  }
}

void add_dis(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("dis", "Disassemble a pickle, like pickletools.dis");
  struct Opts {
    std::string file;
    pickle::Limits limits;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE", o->file, "Pickle file ('-' for stdin)")->required();
  add_limit_options(cmd, o->limits);
  cmd->footer(
      "Prints offset, opcode, argument and memo notes per line, then the highest\n"
      "protocol used. A malformed stream is shown up to the error, then exits 1.\n"
      "It stops where decode would at its limits (same options, same errors);\n"
      "indentation stops growing after 32 open marks.");
  cmd->callback([&action, o] {
    action = [o] {
      std::string data = read_input(o->file);
      auto d = pickle::disassemble(as_bytes(data), o->limits);
      apply_decoder_limits(data, o->limits, d);
      std::cout << pickle::format_disassembly(d);
      std::cout.flush();
      if (!d.error.empty()) {
        return fail(at_byte(pickle::error_kind_name(d.error_kind), d.error_offset, d.error_detail));
      }
      return kExitOk;
    };
  });
}

// The process's resident memory now, from /proc/self/statm (0 where that
// cannot be read).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t total_pages = 0, resident_pages = 0;
  if (!(statm >> total_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// `decode --stats`: one JSON object. The graph's bytes are its node chunks
// and arena (payloads and item spans); peak_rss is the process's high-water
// mark, and peak_growth that mark less what was resident just before
// decoding (the input already read): what decoding added at its peak.
std::string decode_stats(std::size_t input_bytes, const Graph& graph, double seconds,
                         std::size_t rss_before) {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const std::size_t peak = static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
  const std::size_t held = graph.bytes_held();
  nlohmann::json j;
  j["input_bytes"] = input_bytes;
  j["nodes"] = graph.size();
  j["node_size"] = sizeof(Node);
  j["graph_bytes"] = held;
  j["graph_bytes_per_node"] =
      graph.size() == 0 ? 0.0 : static_cast<double>(held) / static_cast<double>(graph.size());
  j["decode_seconds"] = seconds;
  j["rss_before_bytes"] = rss_before;
  j["peak_rss_bytes"] = peak;
  j["peak_growth_bytes"] = peak > rss_before ? peak - rss_before : 0;
  return j.dump();
}

void add_decode(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("decode", "Decode a pickle to canonical JSON (docs/value-json.md)");
  struct Opts {
    std::string file;
    std::vector<std::string> buffers;
    bool writable_buffers = false;
    int max_protocol = pickle::kHighestProtocol;
    bool pretty = false;
    bool stats = false;
    pickle::Limits limits;
    bool message = false;
    std::vector<std::string> allow;
    std::string device = "sim:0";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE", o->file, "Pickle file ('-' for stdin)")->required();
  auto* buffer_opt = cmd->add_option(
      "--buffer,-b", o->buffers, "Out-of-band buffer file for NEXT_BUFFER, in order (repeatable)");
  auto* message_flag = cmd->add_flag(
      "--message", o->message,
      "FILE is a packed message (distributed's serialize_bytes): print its header and value");
  message_flag->excludes(buffer_opt);
  cmd->add_flag("--writable-buffers", o->writable_buffers,
                "The loader gets the --buffer files as writable memory (as bytearray); "
                "default: read-only (as bytes)")
      ->needs(buffer_opt);
  cmd->add_option("--allow", o->allow,
                  "With --message: a family the header may name (repeatable; default: any)")
      ->needs(message_flag);
  cmd->add_option("--device", o->device,
                  "With --message: where cuda-family frames are loaded (sim:N, cuda:N)")
      ->needs(message_flag)
      ->capture_default_str();
  cmd->add_option("--max-protocol", o->max_protocol, "Act as a loader that knows protocols up to N")
      ->check(CLI::Range(0, pickle::kHighestProtocol));
  auto* pretty_flag = cmd->add_flag("--pretty", o->pretty, "Indent the JSON");
  cmd->add_flag("--stats", o->stats,
                "Print what decoding cost instead of the value: nodes, the graph's bytes, "
                "seconds and the process's resident memory (docs/perf.md, \"Memory\")")
      ->excludes(pretty_flag)
      ->excludes(message_flag);
  add_limit_options(cmd, o->limits);
  cmd->footer(
      "A buffer's \"readonly\" (an array's \"writeable\") is what the stream says;\n"
      "\"supplied-readonly\" is what the loader was given (--writable-buffers), so\n"
      "encode writes the stream's bytes again whichever it was.\n"
      "Errors print one line: the error kind, the byte offset and what was wrong\n"
      "(for a message: the header key and frame too).\n"
      "Limits are documented in docs/cli.md; the defaults accept every pickle the\n"
      "C pickler writes for ordinary data.");
  cmd->callback([&action, o] {
    action = [o] {
      std::string data = read_input(o->file);
      if (o->message) {
        return decode_message(data, o->allow, o->device, o->max_protocol, o->limits, o->pretty);
      }
      std::vector<std::string> buffer_bytes;
      buffer_bytes.reserve(o->buffers.size());
      for (const auto& b : o->buffers) buffer_bytes.push_back(read_input(b));
      std::vector<pickle::BufferView> views;
      for (const auto& b : buffer_bytes) {
        views.push_back(
            {reinterpret_cast<const std::uint8_t*>(b.data()), b.size(), !o->writable_buffers});
      }
      pickle::DecodeOptions options;
      options.max_protocol = o->max_protocol;
      options.buffers = views;
      options.limits = o->limits;
      Graph graph;
      try {
        const std::size_t rss_before = o->stats ? resident_bytes() : 0;
        const auto start = std::chrono::steady_clock::now();
        auto result = pickle::decode(as_bytes(data), graph, options);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        if (o->stats) {
          std::cout << decode_stats(data.size(), graph, took.count(), rss_before) << "\n";
        } else {
          std::cout << to_json(result.root, o->pretty) << "\n";
        }
      } catch (const pickle::PickleError& e) {
        // A packed message starts with its frame count (a u64), so the
        // decoder sees a small byte where PROTO belongs: name the flag.
        if (e.offset() == 0 && looks_like_packed_message(data)) {
          return fail(at_byte(e) + "; " + (o->file == "-" ? std::string("the input") : o->file) +
                      " looks like a packed message (distributed's serialize_bytes): "
                      "decode it with --message");
        }
        return fail(at_byte(e));
      }
      return kExitOk;
    };
  });
}

void add_encode(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("encode", "Encode canonical JSON (stdin) to a pickle (stdout)");
  struct Opts {
    int protocol = -1;  // not given: 5, or the --python version's default
    std::string python;
    std::string input = "-";
    std::string output = "-";
    std::string buffers_dir;
    bool message = false;
    std::vector<std::string> families = {"dask", "pickle"};
    std::string compression = "none";
    std::size_t max_depth = kEncodeMaxDepth;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--protocol,-p", o->protocol,
                  "Pickle protocol (with --python: that version's default when not given)")
      ->check(CLI::Range(0, pickle::kHighestProtocol))
      ->default_str(std::to_string(pickle::kHighestProtocol));
  cmd->add_option("--python", o->python,
                  "Write as this CPython version's C pickler (3.6 to 3.15; default 3.11)")
      ->check([](const std::string& v) {
        return pickle::PythonTarget::parse(v) ? std::string()
                                              : "not a supported CPython version (3.6 to 3.15)";
      });
  cmd->add_option("--input,-i", o->input, "Canonical JSON file ('-' for stdin)")
      ->capture_default_str();
  cmd->add_option("--output,-o", o->output, "Pickle file ('-' for stdout)")->capture_default_str();
  auto* buffers_opt = cmd->add_option(
      "--buffers-dir", o->buffers_dir,
      "Send pickle buffers out of band (protocol 5), written as DIR/buffer-<i>.bin");
  auto* message_flag = cmd->add_flag(
      "--message", o->message,
      "Write a packed message (distributed's serialize_bytes); --protocol is the peer's highest");
  message_flag->excludes(buffers_opt);
  cmd->add_option("--family", o->families,
                  "With --message: a family to try, in order (repeatable; default dask, pickle)")
      ->needs(message_flag);
  cmd->add_option("--compression", o->compression, "With --message: frame compression")
      ->check(CLI::IsMember({"none", "lz4", "zstd"}))
      ->needs(message_flag)
      ->capture_default_str();
  cmd->add_option("--max-depth", o->max_depth,
                  "Limit: containers nested in the JSON (the default is half of decode's "
                  "--max-depth, so decode reads what encode writes)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->footer(
      "The output is byte-identical to CPython 3.11's pickle.dumps(obj, protocol=N),\n"
      "or with --python X.Y to that version's (docs/versions.md).\n"
      "With --message it is pack_message(serialize(value)), read back by\n"
      "distributed's deserialize_bytes (docs/families.md).");
  cmd->callback([&action, o] {
    action = [o] {
      std::string text = read_input(o->input);
      Graph graph;
      Node* root = nullptr;
      try {
        root = from_json(text, graph);
      } catch (const JsonFormError& e) {
        // what() already starts with the pointer.
        return fail(std::string("invalid JSON value at ") + e.what());
      }
      if (const auto deep = too_deep(root, o->max_depth)) return fail(*deep);
      pickle::PythonTarget target = pickle::PythonTarget::default_target();
      if (!o->python.empty()) target = *pickle::PythonTarget::parse(o->python);
      const int protocol = o->protocol >= 0    ? o->protocol
                           : o->python.empty() ? pickle::kHighestProtocol
                                               : target.default_protocol();
      if (o->message) return encode_message(root, o->families, o->compression, protocol, o->output);
      pickle::EncodeOptions options;
      options.protocol = protocol;
      options.target = target;
      // The limit was checked on the JSON above, where a pointer can name
      // the node; the encoder's own (it counts its own levels, domain values'
      // reduce forms included) only backs that up.
      options.max_depth = 2 * o->max_depth + 64;
      if (!o->buffers_dir.empty()) {
        if (protocol < 5) {
          return fail("--buffers-dir needs protocol 5 (out-of-band buffers are PEP 574)");
        }
        options.buffer_callback = [](const Node&) { return false; };
      }
      pickle::EncodeResult result;
      try {
        result = pickle::encode(root, options);
      } catch (const pickle::PickleError& e) {
        return encode_failure(root, options, e);
      }
      if (!o->buffers_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o->buffers_dir, ec);
        for (std::size_t i = 0; i < result.buffers.size(); ++i) {
          auto path =
              std::filesystem::path(o->buffers_dir) / ("buffer-" + std::to_string(i) + ".bin");
          std::ofstream out(path, std::ios::binary);
          auto payload = result.buffers[i]->payload();
          out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
          if (!out) return fail("cannot write " + path.string());
        }
      }
      if (o->output == "-") {
        write_stdout(result.bytes);
      } else {
        std::ofstream out(o->output, std::ios::binary);
        out.write(result.bytes.data(), static_cast<std::streamsize>(result.bytes.size()));
        if (!out) return fail("cannot write " + o->output);
      }
      return kExitOk;
    };
  });
}

}  // namespace serialcheck::cli
