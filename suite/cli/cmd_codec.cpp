// `serialcheck dis`, `decode` and `encode`: the reference codec from the shell.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "reference/pickle/decoder.h"
#include "reference/pickle/disasm.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/value/json.h"
#include "suite/cli/commands.h"

namespace serialcheck::cli {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

int pickle_failure(const pickle::PickleError& e) {
  return fail(std::string(pickle::error_kind_name(e.kind())) + " at byte " +
              std::to_string(e.offset()) + ": " + e.detail());
}

void write_stdout(std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

void add_dis(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("dis", "Disassemble a pickle, like pickletools.dis");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "Pickle file ('-' for stdin)")->required();
  cmd->footer("Prints offset, opcode, argument and memo notes per line, then the highest\n"
              "protocol used. A malformed stream is shown up to the error, then exits 1.");
  cmd->callback([&action, file] {
    action = [file] {
      std::string data = read_input(*file);
      auto d = pickle::disassemble(as_bytes(data));
      std::cout << pickle::format_disassembly(d);
      std::cout.flush();
      if (!d.error.empty()) {
        return fail(d.error);
      }
      return kExitOk;
    };
  });
}

void add_decode(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("decode", "Decode a pickle to canonical JSON (docs/value-json.md)");
  struct Opts {
    std::string file;
    std::vector<std::string> buffers;
    int max_protocol = pickle::kHighestProtocol;
    bool pretty = false;
    pickle::Limits limits;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE", o->file, "Pickle file ('-' for stdin)")->required();
  cmd->add_option("--buffer,-b", o->buffers,
                  "Out-of-band buffer file for NEXT_BUFFER, in order (repeatable)");
  cmd->add_option("--max-protocol", o->max_protocol,
                  "Act as a loader that knows protocols up to N")
      ->check(CLI::Range(0, pickle::kHighestProtocol));
  cmd->add_flag("--pretty", o->pretty, "Indent the JSON");
  cmd->add_option("--max-depth", o->limits.max_depth, "Limit: containers open at once")
      ->capture_default_str();
  cmd->add_option("--max-memo", o->limits.max_memo, "Limit: memo entries and largest memo key")
      ->capture_default_str();
  cmd->add_option("--alloc-per-byte", o->limits.alloc_per_input_byte,
                  "Limit: bytes the decoder may allocate per input byte")
      ->capture_default_str();
  cmd->add_option("--alloc-constant", o->limits.alloc_constant,
                  "Limit: bytes the decoder may allocate beyond the per-byte allowance")
      ->capture_default_str();
  cmd->footer("Errors print one line: the error kind, the byte offset and what was wrong.\n"
              "Limits are documented in docs/cli.md; the defaults accept every pickle the\n"
              "C pickler writes for ordinary data.");
  cmd->callback([&action, o] {
    action = [o] {
      std::string data = read_input(o->file);
      std::vector<std::string> buffer_bytes;
      buffer_bytes.reserve(o->buffers.size());
      for (const auto& b : o->buffers) buffer_bytes.push_back(read_input(b));
      std::vector<pickle::BufferView> views;
      for (const auto& b : buffer_bytes) {
        views.push_back({reinterpret_cast<const std::uint8_t*>(b.data()), b.size(), true});
      }
      pickle::DecodeOptions options;
      options.max_protocol = o->max_protocol;
      options.buffers = views;
      options.limits = o->limits;
      Graph graph;
      try {
        auto result = pickle::decode(as_bytes(data), graph, options);
        std::cout << to_json(result.root, o->pretty) << "\n";
      } catch (const pickle::PickleError& e) {
        return pickle_failure(e);
      }
      return kExitOk;
    };
  });
}

void add_encode(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("encode", "Encode canonical JSON (stdin) to a pickle (stdout)");
  struct Opts {
    int protocol = pickle::kHighestProtocol;
    std::string input = "-";
    std::string output = "-";
    std::string buffers_dir;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--protocol,-p", o->protocol, "Pickle protocol")
      ->check(CLI::Range(0, pickle::kHighestProtocol))
      ->capture_default_str();
  cmd->add_option("--input,-i", o->input, "Canonical JSON file ('-' for stdin)")
      ->capture_default_str();
  cmd->add_option("--output,-o", o->output, "Pickle file ('-' for stdout)")->capture_default_str();
  cmd->add_option("--buffers-dir", o->buffers_dir,
                  "Send pickle buffers out of band (protocol 5), written as DIR/buffer-<i>.bin");
  cmd->footer("The output is byte-identical to CPython 3.11's pickle.dumps(obj, protocol=N).");
  cmd->callback([&action, o] {
    action = [o] {
      std::string text = read_input(o->input);
      Graph graph;
      Node* root = nullptr;
      try {
        root = from_json(text, graph);
      } catch (const JsonFormError& e) {
        return fail(std::string("invalid JSON value at ") + e.where() + ": " + e.what());
      }
      pickle::EncodeOptions options;
      options.protocol = o->protocol;
      if (!o->buffers_dir.empty()) {
        if (o->protocol < 5) {
          return fail("--buffers-dir needs protocol 5 (out-of-band buffers are PEP 574)");
        }
        options.buffer_callback = [](const Node&) { return false; };
      }
      pickle::EncodeResult result;
      try {
        result = pickle::encode(root, options);
      } catch (const pickle::PickleError& e) {
        return pickle_failure(e);
      }
      if (!o->buffers_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o->buffers_dir, ec);
        for (std::size_t i = 0; i < result.buffers.size(); ++i) {
          auto path = std::filesystem::path(o->buffers_dir) / ("buffer-" + std::to_string(i) + ".bin");
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
