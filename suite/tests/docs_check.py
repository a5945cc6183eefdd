"""Checks that the documentation says what the `serialcheck` command does.

Three checks, each a ctest test (suite/tests/CMakeLists.txt), and a fourth
that proves the first three reject wrong documentation:

  examples    runs every ```console block of README.md and docs/*.md: each
              `$ ` line is a command, the lines after it its expected output
              (what it writes to stdout, then what it writes to stderr; a
              line `...` stands for any number of lines, and `...` inside a
              line for any text), and a command that ends with `# exit N`
              must exit with N (otherwise with 0). Every block runs in a
              fresh folder where `build/bin/serialcheck` and `serialcheck`
              are the command under test and `harness/` is the repository's
              (to be read only), so nothing in the repository is written.
              A ```sh block is not run; it needs a `<!-- not run: REASON -->`
              line right above it, and the reason is printed.
  references  every ctest test the docs name exists (`ctest -R X` and
              "the `X` test"), and every `serialcheck COMMAND --option` the
              docs show (code spans and code blocks) names a command and
              options that `serialcheck COMMAND --help` lists.
  help        for every command, the options `serialcheck COMMAND --help`
              lists are exactly those docs/cli.md documents for it (its
              synopsis and option tables), and the defaults and ranges agree
              where both state them.
  selftest    each check must reject a document with one planted mistake.

Usage:
  docs_check.py examples   --cli BIN --source DIR FILE.md...
  docs_check.py references --cli BIN --ctest CTEST --build DIR FILE.md...
  docs_check.py help       --cli BIN --cli-md docs/cli.md
  docs_check.py selftest   --cli BIN --ctest CTEST --build DIR --source DIR
Exit status 0 when the check passes, 1 when it finds a problem (each named
with its file and line), 2 on a usage error. Standard library only.
"""

import argparse
import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

COMMAND_TIMEOUT_S = 30
RUN_FENCES = {"console"}
NOT_RUN_FENCES = {"sh", "shell", "bash"}
# Options of the benchmark runner that `serialcheck bench` passes on after
# `--` (docs/cli.md, "serialcheck bench"): not options of `bench` itself.
RUNNER_OPTION_PREFIXES = ("--benchmark_", "--default-malloc")


# ---------------------------------------------------------------- Markdown


class Block:
    def __init__(self, path, line, info, body, note):
        self.path, self.line, self.info, self.body, self.note = path, line, info, body, note

    @property
    def lang(self):
        return self.info.split()[0] if self.info else ""

    def where(self):
        return f"{self.path}:{self.line}"


def parse_markdown(path, text=None):
    """Returns (blocks, prose): the fenced blocks, and the text outside them
    as (line number, text) paragraphs."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.split("\n")
    blocks, prose, para, para_line = [], [], [], 0
    last_comment = None
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*(```+|~~~+)\s*(.*)$", lines[i])
        if m:
            if para:
                prose.append((para_line, "\n".join(para)))
                para = []
            fence, info, start = m.group(1), m.group(2).strip(), i + 1
            i += 1
            body = []
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append(Block(path, start, info, body, last_comment))
            last_comment = None
            i += 1
            continue
        stripped = lines[i].strip()
        c = re.match(r"^<!--\s*(.*?)\s*-->$", stripped)
        if c:
            last_comment = c.group(1)
        elif stripped:
            last_comment = None
        if stripped:
            if not para:
                para_line = i + 1
            para.append(lines[i])
        elif para:
            prose.append((para_line, "\n".join(para)))
            para = []
        i += 1
    if para:
        prose.append((para_line, "\n".join(para)))
    return blocks, prose


def code_spans(paragraph):
    return [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", paragraph)]


# ----------------------------------------------------------------- the CLI


class Help:
    """What `serialcheck [COMMAND] --help` lists."""

    def __init__(self, cli):
        self.cli = cli
        top = self._run([])
        self.commands = []
        section = None
        for line in top.split("\n"):
            if re.match(r"^\S.*:$", line):
                section = line[:-1]
                continue
            m = re.match(r"^  (\S+)\s", line + " ")
            if section == "Subcommands" and m:
                self.commands.append(m.group(1))
        self.top_options = self._options(top)
        self.text = {c: self._run([c]) for c in self.commands}
        self.options = {c: self._options(self.text[c]) for c in self.commands}

    def _run(self, words):
        try:
            p = subprocess.run([self.cli, *words, "--help"], capture_output=True, text=True,
                               timeout=COMMAND_TIMEOUT_S)
        except OSError as e:
            raise SystemExit(f"docs_check: cannot run {self.cli}: {e.strerror}")
        if p.returncode != 0:
            raise SystemExit(f"docs_check: {' '.join(['serialcheck', *words, '--help'])} "
                             f"exited {p.returncode}")
        return p.stdout

    @staticmethod
    def _options(text):
        """{name: {"names": [...], "default": str|None, "range": (lo, hi)|None}}
        for each option of CLI11's "Options:" section, keyed by every name."""
        out, section = {}, None
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if re.match(r"^\S.*:$", line):
                section = line[:-1]
                continue
            if section != "Options" or not line.startswith("  -"):
                continue
            # CLI11 starts the description in column 30, after at least one
            # space, or on the next line when the option's text is longer.
            wrapped = i + 1 < len(lines) and lines[i + 1].startswith(" " * 30)
            head = line.strip() if wrapped else line[:30].strip()
            first, _, kind = head.partition(" ")
            names = first.split(",")
            if "--help" in names:
                continue
            kind = re.split(r" (?:Excludes|Needs): ", kind)[0]
            default = None
            d = re.search(r"=(\S+)$", kind)
            if d and not re.fullmatch(r"[A-Z]+(?: \.\.\.)?", d.group(1)):
                default = d.group(1)
            r = re.search(r"in \[(-?[\d.]+) - (-?[\d.]+)\]", kind)
            entry = {"names": names, "default": default,
                     "range": (r.group(1), r.group(2)) if r else None}
            for n in names:
                out[n] = entry
        return out

    def long_options(self, command):
        return sorted({e["names"][-1] for e in self.options[command].values()})


FLAG = r"(?<![\w./-])(--?[A-Za-z][\w-]*)"


def flags_in(text):
    """The options in a command line or synopsis: quoted words and what comes
    after a lone `--` (the words of another program) are left out."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", " ", text)
    text = re.split(r"(?:^|\s)--(?:\s|$)", text)[0]
    text = re.split(r"\s(?:\|\s|&&|;|>|<|#)", " " + text)[0]
    return [f.split("=")[0] for f in re.findall(FLAG, text)]


# `serialcheck` where a command starts: a line's or a code span's start, after
# a pipe, `&&`, `;`, `(`, a `$ ` prompt or YAML's `run:` (not as an argument).
INVOCATION = re.compile(r"(?:^\s*|[|;&(]\s*|\$\s+|run:\s+)(?:[\w./]*/)?(serialcheck|scripts/run)"
                        r"(?=\s|$)(.*)$")


def invocations(text):
    """(command or None, rest of the line) for every `serialcheck ...` in a line."""
    out = []
    for line in text.split("\n"):
        m = INVOCATION.search(line)
        if not m:
            continue
        rest = m.group(2)
        if m.group(1) == "scripts/run":
            out.append(("run", rest))
            continue
        w = re.match(r"\s+([A-Za-z][\w-]*)", rest)
        if w and not w.group(1).isupper():
            out.append((w.group(1), rest[w.end():]))
        else:
            out.append((None, rest))
    return out


# ---------------------------------------------------------------- examples


def open_quote(cmd):
    """Whether a shell command line ends inside a quoted string."""
    try:
        shlex.split(cmd, comments=True)
        return False
    except ValueError:
        return True


def split_example(block):
    """[(command, expected exit, [expected lines])] of a console block."""
    steps, problems = [], []
    i = 0
    body = block.body
    while i < len(body):
        line = body[i]
        if not line.startswith("$ "):
            if line.strip():
                problems.append(f"{block.path}:{block.line + 1 + i}: a console block must start "
                                f"with a `$ ` command line, not {line.strip()!r}")
            i += 1
            continue
        cmd = line[2:]
        while (cmd.endswith("\\") or open_quote(cmd)) and i + 1 < len(body):
            i += 1
            cmd += "\n" + body[i]  # the shell reads backslash-newline as a continuation
        code = 0
        m = re.search(r"\s#\s*exit (?:status )?(\d+)\s*$", cmd)
        if m:
            code = int(m.group(1))
        i += 1
        expected = []
        while i < len(body) and not body[i].startswith("$ "):
            expected.append(body[i].rstrip())
            i += 1
        while expected and not expected[-1]:
            expected.pop()
        steps.append((cmd, code, expected, block.line + 1 + i))
    return steps, problems


def line_matches(pattern, line):
    if "..." not in pattern:
        return pattern == line
    parts = pattern.split("...")
    if not line.startswith(parts[0]) or not line.endswith(parts[-1]):
        return False
    pos, end = len(parts[0]), len(line) - len(parts[-1])
    for part in parts[1:-1]:
        k = line.find(part, pos, end)
        if k < 0:
            return False
        pos = k + len(part)
    return pos <= end


def output_matches(expected, actual):
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i] == "...":
            r = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_matches(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def run_examples(files, cli, source):
    problems, ran, not_run = [], 0, []
    bindir = tempfile.mkdtemp(prefix="docs-check-bin-")
    try:
        os.symlink(os.path.abspath(cli), os.path.join(bindir, "serialcheck"))
        env = dict(os.environ)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        env["LC_ALL"] = "C.UTF-8"
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # harness/ is the repository's
        for path in files:
            blocks, _ = parse_markdown(path)
            for block in blocks:
                if block.lang in NOT_RUN_FENCES:
                    m = re.match(r"not run:\s*(.+)", block.note or "")
                    if not m:
                        problems.append(f"{block.where()}: a ```{block.lang} block is not run; "
                                        "make it ```console, or say why above it with "
                                        "<!-- not run: REASON -->")
                    else:
                        not_run.append(f"{block.where()}: not run: {m.group(1)}")
                    continue
                if block.lang not in RUN_FENCES:
                    continue
                steps, bad = split_example(block)
                problems += bad
                print(f"{block.where()}: {len(steps)} command(s)")
                if not steps:
                    problems.append(f"{block.where()}: a console block without a `$ ` command")
                work = tempfile.mkdtemp(prefix="docs-example-")
                try:
                    os.makedirs(os.path.join(work, "build", "bin"))
                    os.symlink(os.path.abspath(cli), os.path.join(work, "build", "bin", "serialcheck"))
                    os.symlink(os.path.join(os.path.abspath(source), "harness"),
                               os.path.join(work, "harness"))
                    for cmd, code, expected, _ in steps:
                        ran += 1
                        try:
                            p = subprocess.run(["/bin/sh", "-c", cmd], cwd=work, env=env,
                                               stdin=subprocess.DEVNULL, capture_output=True,
                                               timeout=COMMAND_TIMEOUT_S)
                            out = "\n".join(t for t in (p.stdout.decode("utf-8", "replace").rstrip("\n"),
                                                         p.stderr.decode("utf-8", "replace")) if t)
                            status = p.returncode
                        except subprocess.TimeoutExpired:
                            problems.append(f"{block.where()}: `{cmd}` ran past {COMMAND_TIMEOUT_S} s")
                            break
                        actual = [l.rstrip() for l in out.split("\n")]
                        while actual and not actual[-1]:
                            actual.pop()
                        if status != code:
                            problems.append(f"{block.where()}: `{cmd}` exited {status}, the doc says "
                                            f"{code}; its output:\n    " + "\n    ".join(actual[-20:]))
                            break
                        if not output_matches(expected, actual):
                            problems.append(f"{block.where()}: `{cmd}` printed other output than the "
                                            "doc says.\n  expected:\n    " + "\n    ".join(expected)
                                            + "\n  got:\n    " + "\n    ".join(actual[:40]))
                            break
                finally:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
    for line in not_run:
        print(line)
    print(f"{ran} example commands run, {len(not_run)} blocks not run")
    return problems


# -------------------------------------------------------------- references


def ctest_names(ctest, build):
    p = subprocess.run([ctest, "--test-dir", build, "-N"], capture_output=True, text=True,
                       timeout=COMMAND_TIMEOUT_S)
    names = re.findall(r"^\s*Test\s+#\d+: (\S+)", p.stdout, re.M)
    if not names:
        raise SystemExit(f"docs_check: `ctest --test-dir {build} -N` listed no tests")
    # A build with SERIALCHECK_TEST_SHARDS runs an executable's cases as
    # shards (NAME.shard-I-of-N): its cases are what the executable lists.
    for target in sorted({m.group(1) for m in map(SHARD_TEST.match, names) if m}):
        names += gtest_cases(os.path.join(build, "bin", target))
    return names


SHARD_TEST = re.compile(r"^(\S+)\.shard-\d+-of-\d+$")


def gtest_cases(executable):
    p = subprocess.run([executable, "--gtest_list_tests"], capture_output=True, text=True,
                       timeout=COMMAND_TIMEOUT_S, env={k: v for k, v in os.environ.items()
                                                       if not k.startswith("GTEST_")})
    if p.returncode != 0:
        raise SystemExit(f"docs_check: `{executable} --gtest_list_tests` failed: {p.stderr.strip()}")
    cases, suite = [], None
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split()[0]  # "Suite." (a typed or parameterized one has a comment after)
        elif suite:
            cases.append(suite + line.split()[0])
    return cases


def test_exists(name, tests):
    return any(t == name or t.startswith(name + ".") or t.startswith(name + "/") or
               t.split("/")[-1].startswith(name + ".") for t in tests)


def check_invocation(where, command, rest, help_):
    problems = []
    if command is None:
        for f in flags_in(rest):
            if f not in help_.top_options and f not in ("-h", "--help"):
                problems.append(f"{where}: `serialcheck {f}`: serialcheck has no option {f}")
        return problems
    if command not in help_.commands:
        return [f"{where}: `serialcheck {command}`: no such command "
                f"(serialcheck --help lists {', '.join(help_.commands)})"]
    for f in flags_in(rest):
        if f in ("-h", "--help"):
            continue
        if f not in help_.options[command]:
            problems.append(f"{where}: `serialcheck {command} ... {f}`: "
                            f"`serialcheck {command} --help` lists no {f}")
    return problems


def check_references(files, help_, tests, cli_md_name="cli.md"):
    problems = []
    for path in files:
        blocks, prose = parse_markdown(path)
        section_command = None
        # Invocations in code blocks.
        for block in blocks:
            text = "\n".join(block.body)
            if block.lang == "console":
                # A step that states a failing exit status may misuse the
                # command on purpose; the examples check runs it.
                steps, _ = split_example(block)
                text = "\n".join(cmd for cmd, code, _, _ in steps if code == 0)
            if block.lang in ("json", "cpp", "python", "text"):
                continue
            text = re.sub(r"\\\n\s*", " ", text)  # continued lines
            for command, rest in invocations(text):
                problems += check_invocation(block.where(), command, rest, help_)
            for m in re.finditer(r"\bctest\b[^\n]*?\s-R\s+('[^']*'|\"[^\"]*\"|\S+)", text):
                problems += check_ctest_regex(block.where(), m.group(1), tests)
        # Code spans in prose.
        for line, para in prose:
            h = re.match(r"^#+\s+`serialcheck ([\w-]+)`", para)
            if h:
                section_command = h.group(1)
            elif para.startswith("## "):
                section_command = None
            where = f"{path}:{line}"
            for span in code_spans(para):
                for command, rest in invocations(span):
                    problems += check_invocation(where, command, rest, help_)
                m = re.search(r"\bctest\b.*\s-R\s+('[^']*'|\"[^\"]*\"|\S+)", span)
                if m:
                    problems += check_ctest_regex(where, m.group(1), tests)
                if (os.path.basename(path) == cli_md_name and section_command in help_.options
                        and re.match(r"^--?[A-Za-z]", span)):
                    f = span.split()[0].split("=")[0]
                    if not f.startswith(RUNNER_OPTION_PREFIXES) and f not in help_.options[section_command]:
                        problems.append(f"{where}: `{span}` in the section of `serialcheck "
                                        f"{section_command}`, whose --help lists no {f}")
            flat = para.replace("\n", " ")
            for m in re.finditer(r"(?:\b(?:ctest|the) (?:test|suite|tests) `([^`]+)`|"
                                 r"`([^`]+)` (?:test|tests|suite)\b)", flat):
                name = m.group(1) or m.group(2)
                if not re.fullmatch(r"[A-Za-z][\w.-]*(?:/[\w.-]+)*", name) or name.isupper():
                    continue  # a path, or a placeholder such as NAME
                if not test_exists(name, tests):
                    problems.append(f"{where}: the doc names a test `{name}`, but ctest -N "
                                    "lists no test or suite of that name")
    return problems


def check_ctest_regex(where, pattern, tests):
    pattern = pattern.strip("'\"")
    if pattern.isupper():
        return []  # a placeholder: `ctest -R NAME`
    try:
        rx = re.compile(pattern)
    except re.error as e:
        return [f"{where}: `ctest -R {pattern}`: not a regular expression ({e})"]
    if not any(rx.search(t) for t in tests):
        return [f"{where}: `ctest -R {pattern}` selects no test (ctest -N)"]
    return []


# -------------------------------------------------------- --help vs cli.md


def cli_md_sections(text):
    """{command: section text} for each `## serialcheck COMMAND` section."""
    out = {}
    parts = re.split(r"^## ", text, flags=re.M)
    for part in parts[1:]:
        m = re.match(r"`serialcheck ([\w-]+)`", part)
        if m:
            out[m.group(1)] = "## " + part
    return out


def documented_options(command, section):
    """{flag: {"default": text|None, "meaning": text}} from the section's
    synopsis blocks (those that start with `serialcheck COMMAND`) and the
    first column of its tables, and its prose `--flag ...` (default X)."""
    docs = {}
    blocks, prose = parse_markdown("cli.md", section)
    for block in blocks:
        if block.lang or not block.body or not block.body[0].startswith(f"serialcheck {command}"):
            continue
        for f in flags_in(" ".join(block.body)[len(f"serialcheck {command}"):]):
            docs.setdefault(f, {"default": None, "meaning": ""})
    for line in section.split("\n"):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if not cells or not re.match(r"^`-", cells[0]):
            continue
        for span in re.findall(r"`([^`]+)`", cells[0]):
            f = span.split()[0]
            if f == "--":
                continue
            entry = docs.setdefault(f, {"default": None, "meaning": ""})
            if len(cells) >= 3:
                entry["default"] = cells[1]
            entry["meaning"] = cells[-1]
    for _, para in prose:
        flat = para.replace("\n", " ")
        for m in re.finditer(r"`(--?[\w-]+)[^`]*`\s+\(default ([^)]+)\)", flat):
            if m.group(1) in docs and docs[m.group(1)]["default"] is None:
                docs[m.group(1)]["default"] = m.group(2)
    return docs


def default_agrees(doc_default, help_default):
    """Compares a default cli.md states with one --help states; None when the
    doc's cell is prose, not a value."""
    text = doc_default.strip()
    if text.startswith("`") and text.endswith("`") and text.count("`") == 2:
        value = text.strip("`")
    elif re.fullmatch(r"[\d,.]+", text):
        value = text.replace(",", "")
    else:
        return None
    if help_default is None:
        return False
    try:
        return float(value) == float(help_default)
    except ValueError:
        return value == help_default


def check_help(cli_md_text, help_, cli_md_name):
    problems = []
    sections = cli_md_sections(cli_md_text)
    table = set(re.findall(r"^\| \[`([\w-]+)`\]", cli_md_text, re.M))
    for c in help_.commands:
        if c not in sections:
            problems.append(f"{cli_md_name}: `serialcheck --help` lists the command {c}, "
                            "which has no `## serialcheck " + c + "` section")
        if c not in table:
            problems.append(f"{cli_md_name}: the table of commands lacks {c}")
    for c in sections:
        if c not in help_.commands:
            problems.append(f"{cli_md_name}: a section documents `serialcheck {c}`, "
                            "which serialcheck --help does not list")
    for c in table:
        if c not in help_.commands:
            problems.append(f"{cli_md_name}: the table of commands lists {c}, "
                            "which serialcheck --help does not")
    intro = re.split(r"^## ", cli_md_text, flags=re.M)[0]
    top_docs = set()
    for block in parse_markdown("cli.md", intro)[0]:
        if not block.lang:
            for line in block.body:
                if line.startswith("serialcheck "):
                    top_docs.update(flags_in(line[len("serialcheck "):]))
    for name, entry in sorted(help_.top_options.items()):
        if name not in top_docs and entry["names"][-1] not in top_docs:
            problems.append(f"{cli_md_name}: `serialcheck --help` lists {name}, which the "
                            "synopsis at the top does not show")
    for name in sorted(top_docs - set(help_.top_options) - {"--help", "-h"}):
        problems.append(f"{cli_md_name}: the synopsis at the top shows {name}, which "
                        "`serialcheck --help` does not list")
    for c in help_.commands:
        if c not in sections:
            continue
        docs = documented_options(c, sections[c])
        opts = help_.options[c]
        for name, entry in sorted(opts.items()):
            if name not in docs:
                problems.append(f"{cli_md_name}: `serialcheck {c} --help` lists {name}, "
                                f"which the section of `serialcheck {c}` does not document")
        for name in sorted(docs):
            if name.startswith(RUNNER_OPTION_PREFIXES):
                continue
            if name not in opts:
                problems.append(f"{cli_md_name}: the section of `serialcheck {c}` documents "
                                f"{name}, which `serialcheck {c} --help` does not list")
                continue
            entry, doc = opts[name], docs[name]
            if doc["default"] is not None:
                agrees = default_agrees(doc["default"], entry["default"])
                if agrees is False:
                    problems.append(f"{cli_md_name}: `serialcheck {c}` {name}: the doc's default "
                                    f"is {doc['default']}, --help says "
                                    f"{entry['default'] if entry['default'] is not None else 'none'}")
            if entry["range"]:
                r = re.search(r"\((-?[\d,]+)\.\.(-?[\d,]+)\)", doc["meaning"])
                if r and (r.group(1).replace(",", ""), r.group(2).replace(",", "")) != entry["range"]:
                    problems.append(f"{cli_md_name}: `serialcheck {c}` {name}: the doc's range is "
                                    f"{r.group(1)}..{r.group(2)}, --help says "
                                    f"{entry['range'][0]}..{entry['range'][1]}")
        for ref in re.findall(r"docs/[\w.-]+\.md", help_.text[c]):
            if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(cli_md_name)),
                                               os.path.basename(ref))):
                problems.append(f"`serialcheck {c} --help` refers to {ref}, which does not exist")
    return problems


# ---------------------------------------------------------------- selftest


def selftest(args, help_):
    """Every check must reject a document with one planted mistake, and name it."""
    failures = []
    work = tempfile.mkdtemp(prefix="docs-check-selftest-")

    def expect(what, problems, needle):
        hit = [p for p in problems if needle in p]
        if hit:
            print(f"ok: rejects {what}: {hit[0].splitlines()[0]}")
        else:
            failures.append(f"the checker accepted {what} (wanted a problem with {needle!r}; "
                            f"got {problems})")

    def write(name, text):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    try:
        good = write("good.md", "Text.\n\n```console\n$ serialcheck decode --help\n"
                     "Decode a pickle to canonical JSON (docs/value-json.md)\n...\n"
                     "$ serialcheck decode nothing-here.pickle   # exit 1\n"
                     "serialcheck: cannot read nothing-here.pickle: ...\n```\n\n"
                     "<!-- not run: an example -->\n```sh\nserialcheck run --cases 5\n```\n")
        p = run_examples([good], args.cli, args.source)
        if p:
            failures.append(f"the checker rejected a correct example: {p}")
        else:
            print("ok: accepts a correct example (wildcards, a stated exit status, a not-run block)")
        expect("a wrong expected output",
               run_examples([write("out.md", "```console\n$ echo one\ntwo\n```\n")], args.cli,
                            args.source),
               "printed other output")
        expect("output that a `...` line does not cover",
               run_examples([write("wild.md", "```console\n$ printf 'one\\ntwo\\nfour\\n'\none\n"
                                   "...\nthree\n```\n")], args.cli, args.source),
               "printed other output")
        expect("a command continued on the next line that fails there",
               run_examples([write("cont.md", "```console\n$ echo one \\\n  two; exit 3\none two\n```\n")],
                            args.cli, args.source), "exited 3, the doc says 0")
        expect("a wrong exit status",
               run_examples([write("exit.md", "```console\n$ serialcheck decode missing.pickle\n"
                                   "...\n```\n")], args.cli, args.source),
               "exited 1, the doc says 0")
        expect("a command block without a reason not to run it",
               run_examples([write("norun.md", "```sh\nserialcheck run\n```\n")], args.cli,
                            args.source),
               "is not run")

        tests = ctest_names(args.ctest, args.build)
        expect("a test name that does not exist",
               check_references([write("t.md", "Run the `no_such_suite` test.\n")], help_, tests),
               "no_such_suite")
        expect("a ctest -R that selects nothing",
               check_references([write("r.md", "Run `ctest -R NoSuchTestAnywhere`.\n")],
                                help_, tests), "selects no test")
        expect("an unknown command",
               check_references([write("c.md", "Try `serialcheck frobnicate x`.\n")], help_, tests),
               "no such command")
        expect("an unknown option on a continued line",
               check_references([write("g.md", "```yaml\nrun: |\n  build/bin/serialcheck run \\\n"
                                       "    --shards 1/3\n```\n")], help_, tests), "--shards")
        expect("an option cli.md's section of a command names in its prose that --help lacks",
               check_references([write("cli.md", "## `serialcheck decode`\n\nUse `--frob N`.\n")],
                                help_, tests), "whose --help lists no --frob")
        expect("an unknown option",
               check_references([write("f.md", "```\nserialcheck decode --no-such-flag F\n```\n")],
                                help_, tests), "--no-such-flag")

        real = os.path.join(args.source, "docs", "cli.md")
        with open(real, encoding="utf-8") as f:
            cli_md = f.read()
        if check_help(cli_md, help_, real):
            failures.append("docs/cli.md does not agree with --help (run the help check)")
        def planted(old, new):
            """cli.md with one mistake; None (and a failure) when the text to
            change is gone, so that this test is updated with cli.md."""
            if old not in cli_md:
                failures.append(f"docs/cli.md no longer holds {old!r}: plant the mistake elsewhere")
                return None
            return cli_md.replace(old, new, 1)

        for what, old, new, needle in [
            ("cli.md missing an option --help lists", "[--max-memo N] ", "",
             "lists --max-memo, which the section of `serialcheck dis`"),
            ("cli.md documenting an option --help lacks", "| `--no-save` | |",
             "| `--no-save` | |\n| `--frobnicate` | | made up |", "documents --frobnicate"),
            ("cli.md stating another default", "| `--cases N` | 100 |", "| `--cases N` | 250 |",
             "--cases: the doc's default is 250, --help says 100"),
            ("cli.md stating another range", "(1..10000)", "(1..20000)",
             "--max-size: the doc's range is 1..20000"),
            ("cli.md without a top-level option", "serialcheck --version\n", "",
             "lists --version, which the synopsis at the top"),
            ("cli.md without a section for a command", "## `serialcheck scan`", "## Scanning",
             "lists the command scan, which has no"),
        ]:
            text = planted(old, new)
            if text is not None:
                expect(what, check_help(text, help_, real), needle)
        broken = copy.copy(help_)
        broken.text = dict(help_.text)
        broken.text["decode"] += "\nSee docs/no-such-page.md.\n"
        expect("a --help that refers to a missing page", check_help(cli_md, broken, real),
               "refers to docs/no-such-page.md")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures


# -------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("check", choices=["examples", "references", "help", "selftest"])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--cli", required=True)
    ap.add_argument("--ctest")
    ap.add_argument("--build")
    ap.add_argument("--source")
    ap.add_argument("--cli-md")
    args = ap.parse_intermixed_args()
    if args.check == "examples":
        if not args.source:
            ap.error("examples needs --source")
        problems = run_examples(args.files, args.cli, args.source)
    elif args.check == "references":
        if not args.ctest or not args.build:
            ap.error("references needs --ctest and --build")
        problems = check_references(args.files, Help(args.cli), ctest_names(args.ctest, args.build))
    elif args.check == "help":
        if not args.cli_md:
            ap.error("help needs --cli-md")
        with open(args.cli_md, encoding="utf-8") as f:
            problems = check_help(f.read(), Help(args.cli), args.cli_md)
    else:
        if not (args.ctest and args.build and args.source):
            ap.error("selftest needs --ctest, --build and --source")
        problems = selftest(args, Help(args.cli))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
