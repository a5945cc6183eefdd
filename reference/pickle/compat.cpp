#include "reference/pickle/compat.h"

#include <map>
#include <string_view>
#include <unordered_map>

namespace serialcheck::pickle {

namespace {

struct ModulePair {
  std::string_view py2;
  std::string_view py3;
};

struct NamePair {
  std::string_view py2_module, py2_name;
  std::string_view py3_module, py3_name;
};

// Modules renamed between Python 2 and 3, mapped both ways.
constexpr ModulePair kModulesBothWays[] = {
    {"__builtin__", "builtins"},
    {"copy_reg", "copyreg"},
    {"Queue", "queue"},
    {"SocketServer", "socketserver"},
    {"ConfigParser", "configparser"},
    {"repr", "reprlib"},
    {"tkFileDialog", "tkinter.filedialog"},
    {"tkSimpleDialog", "tkinter.simpledialog"},
    {"tkColorChooser", "tkinter.colorchooser"},
    {"tkCommonDialog", "tkinter.commondialog"},
    {"Dialog", "tkinter.dialog"},
    {"Tkdnd", "tkinter.dnd"},
    {"tkFont", "tkinter.font"},
    {"tkMessageBox", "tkinter.messagebox"},
    {"ScrolledText", "tkinter.scrolledtext"},
    {"Tkconstants", "tkinter.constants"},
    {"Tix", "tkinter.tix"},
    {"ttk", "tkinter.ttk"},
    {"Tkinter", "tkinter"},
    {"markupbase", "_markupbase"},
    {"_winreg", "winreg"},
    {"thread", "_thread"},
    {"dummy_thread", "_dummy_thread"},
    {"dbhash", "dbm.bsd"},
    {"dumbdbm", "dbm.dumb"},
    {"dbm", "dbm.ndbm"},
    {"gdbm", "dbm.gnu"},
    {"xmlrpclib", "xmlrpc.client"},
    {"SimpleXMLRPCServer", "xmlrpc.server"},
    {"httplib", "http.client"},
    {"htmlentitydefs", "html.entities"},
    {"HTMLParser", "html.parser"},
    {"Cookie", "http.cookies"},
    {"cookielib", "http.cookiejar"},
    {"BaseHTTPServer", "http.server"},
    {"test.test_support", "test.support"},
    {"commands", "subprocess"},
    {"urlparse", "urllib.parse"},
    {"robotparser", "urllib.robotparser"},
    {"urllib2", "urllib.request"},
    {"anydbm", "dbm"},
    {"_abcoll", "collections.abc"},
};

// Python 2 modules that load from a Python 3 module, but not the other way.
constexpr ModulePair kModulesPy2ToPy3Only[] = {
    {"cPickle", "pickle"},
    {"_elementtree", "xml.etree.ElementTree"},
    {"FileDialog", "tkinter.filedialog"},
    {"SimpleDialog", "tkinter.simpledialog"},
    {"DocXMLRPCServer", "xmlrpc.server"},
    {"SimpleHTTPServer", "http.server"},
    {"CGIHTTPServer", "http.server"},
    // Streams written by early Python 3 releases named these wrongly.
    {"UserDict", "collections"},
    {"UserList", "collections"},
    {"UserString", "collections"},
    {"whichdb", "dbm"},
    {"StringIO", "io"},
    {"cStringIO", "io"},
};

// Python 3 accelerator modules written under their Python 2 names.
constexpr ModulePair kModulesPy3ToPy2Only[] = {
    {"bz2", "_bz2"},   {"dbm", "_dbm"},       {"functools", "_functools"},
    {"gdbm", "_gdbm"}, {"pickle", "_pickle"},
};

// Names that moved or were renamed, mapped both ways.
constexpr NamePair kNamesBothWays[] = {
    {"__builtin__", "xrange", "builtins", "range"},
    {"__builtin__", "reduce", "functools", "reduce"},
    {"__builtin__", "intern", "sys", "intern"},
    {"__builtin__", "unichr", "builtins", "chr"},
    {"__builtin__", "unicode", "builtins", "str"},
    {"__builtin__", "long", "builtins", "int"},
    {"itertools", "izip", "builtins", "zip"},
    {"itertools", "imap", "builtins", "map"},
    {"itertools", "ifilter", "builtins", "filter"},
    {"itertools", "ifilterfalse", "itertools", "filterfalse"},
    {"itertools", "izip_longest", "itertools", "zip_longest"},
    {"UserDict", "IterableUserDict", "collections", "UserDict"},
    {"UserList", "UserList", "collections", "UserList"},
    {"UserString", "UserString", "collections", "UserString"},
    {"whichdb", "whichdb", "dbm", "whichdb"},
    {"_socket", "fromfd", "socket", "fromfd"},
    {"_multiprocessing", "Connection", "multiprocessing.connection", "Connection"},
    {"multiprocessing.process", "Process", "multiprocessing.context", "Process"},
    {"multiprocessing.forking", "Popen", "multiprocessing.popen_fork", "Popen"},
    {"urllib", "ContentTooShortError", "urllib.error", "ContentTooShortError"},
    {"urllib", "getproxies", "urllib.request", "getproxies"},
    {"urllib", "pathname2url", "urllib.request", "pathname2url"},
    {"urllib", "quote_plus", "urllib.parse", "quote_plus"},
    {"urllib", "quote", "urllib.parse", "quote"},
    {"urllib", "unquote_plus", "urllib.parse", "unquote_plus"},
    {"urllib", "unquote", "urllib.parse", "unquote"},
    {"urllib", "url2pathname", "urllib.request", "url2pathname"},
    {"urllib", "urlcleanup", "urllib.request", "urlcleanup"},
    {"urllib", "urlencode", "urllib.parse", "urlencode"},
    {"urllib", "urlopen", "urllib.request", "urlopen"},
    {"urllib", "urlretrieve", "urllib.request", "urlretrieve"},
    {"urllib2", "HTTPError", "urllib.error", "HTTPError"},
    {"urllib2", "URLError", "urllib.error", "URLError"},
};

// Python 2 exceptions that live in `builtins` now (both ways, same name).
// WindowsError is left out: it exists only on Windows builds.
constexpr std::string_view kPy2Exceptions[] = {
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BufferError",
    "BytesWarning",
    "DeprecationWarning",
    "EOFError",
    "EnvironmentError",
    "Exception",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "NameError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "ReferenceError",
    "RuntimeError",
    "RuntimeWarning",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
};

// multiprocessing exceptions now in multiprocessing.context (both ways).
constexpr std::string_view kMultiprocessingExceptions[] = {"AuthenticationError", "BufferTooShort",
                                                           "ProcessError", "TimeoutError"};

// Python 2 names that load from Python 3 names, not the other way.
constexpr NamePair kNamesPy2ToPy3Only[] = {
    {"__builtin__", "basestring", "builtins", "str"},
    {"exceptions", "StandardError", "builtins", "Exception"},
    {"UserDict", "UserDict", "collections", "UserDict"},
    {"socket", "_socketobject", "socket", "SocketType"},
};

// Python 3 names written under a Python 2 name, not the other way.
constexpr NamePair kNamesPy3ToPy2Only[] = {
    {"__builtin__", "reduce", "_functools", "reduce"},
    {"FileDialog", "FileDialog", "tkinter.filedialog", "FileDialog"},
    {"FileDialog", "LoadFileDialog", "tkinter.filedialog", "LoadFileDialog"},
    {"FileDialog", "SaveFileDialog", "tkinter.filedialog", "SaveFileDialog"},
    {"SimpleDialog", "SimpleDialog", "tkinter.simpledialog", "SimpleDialog"},
    {"DocXMLRPCServer", "ServerHTMLDoc", "xmlrpc.server", "ServerHTMLDoc"},
    {"DocXMLRPCServer", "XMLRPCDocGenerator", "xmlrpc.server", "XMLRPCDocGenerator"},
    {"DocXMLRPCServer", "DocXMLRPCRequestHandler", "xmlrpc.server", "DocXMLRPCRequestHandler"},
    {"DocXMLRPCServer", "DocXMLRPCServer", "xmlrpc.server", "DocXMLRPCServer"},
    {"DocXMLRPCServer", "DocCGIXMLRPCRequestHandler", "xmlrpc.server",
     "DocCGIXMLRPCRequestHandler"},
    {"SimpleHTTPServer", "SimpleHTTPRequestHandler", "http.server", "SimpleHTTPRequestHandler"},
    {"CGIHTTPServer", "CGIHTTPRequestHandler", "http.server", "CGIHTTPRequestHandler"},
    {"socket", "_socketobject", "_socket", "socket"},
};

// Python 3 exceptions with no Python 2 counterpart, written as their base.
constexpr std::string_view kPy3OSErrorSubclasses[] = {
    "BrokenPipeError",        "ChildProcessError",    "ConnectionAbortedError", "ConnectionError",
    "ConnectionRefusedError", "ConnectionResetError", "FileExistsError",        "FileNotFoundError",
    "InterruptedError",       "IsADirectoryError",    "NotADirectoryError",     "PermissionError",
    "ProcessLookupError",     "TimeoutError",
};
constexpr std::string_view kPy3ImportErrorSubclasses[] = {"ModuleNotFoundError"};

struct Tables {
  std::unordered_map<std::string, std::string> import_2to3, import_3to2;
  std::map<QualifiedName, QualifiedName> name_2to3, name_3to2;

  Tables() {
    auto s = [](std::string_view v) { return std::string(v); };
    auto qn = [&](std::string_view m, std::string_view n) { return QualifiedName(s(m), s(n)); };
    for (const auto& p : kModulesBothWays) {
      import_2to3[s(p.py2)] = s(p.py3);
      import_3to2[s(p.py3)] = s(p.py2);
    }
    for (const auto& p : kModulesPy2ToPy3Only) import_2to3[s(p.py2)] = s(p.py3);
    for (const auto& p : kModulesPy3ToPy2Only) import_3to2[s(p.py3)] = s(p.py2);
    for (const auto& p : kNamesBothWays) {
      name_2to3[qn(p.py2_module, p.py2_name)] = qn(p.py3_module, p.py3_name);
      name_3to2[qn(p.py3_module, p.py3_name)] = qn(p.py2_module, p.py2_name);
    }
    for (std::string_view e : kPy2Exceptions) {
      name_2to3[qn("exceptions", e)] = qn("builtins", e);
      name_3to2[qn("builtins", e)] = qn("exceptions", e);
    }
    for (std::string_view e : kMultiprocessingExceptions) {
      name_2to3[qn("multiprocessing", e)] = qn("multiprocessing.context", e);
      name_3to2[qn("multiprocessing.context", e)] = qn("multiprocessing", e);
    }
    // The one-way entries come last: they override the mutual ones, as the
    // later dict updates do in CPython.
    for (const auto& p : kNamesPy2ToPy3Only) {
      name_2to3[qn(p.py2_module, p.py2_name)] = qn(p.py3_module, p.py3_name);
    }
    for (const auto& p : kNamesPy3ToPy2Only) {
      name_3to2[qn(p.py3_module, p.py3_name)] = qn(p.py2_module, p.py2_name);
    }
    for (std::string_view e : kPy3OSErrorSubclasses) {
      name_3to2[qn("builtins", e)] = qn("exceptions", "OSError");
    }
    for (std::string_view e : kPy3ImportErrorSubclasses) {
      name_3to2[qn("builtins", e)] = qn("exceptions", "ImportError");
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

// A (module, name) rule wins over a module rule, in both directions.
QualifiedName map_name(const std::map<QualifiedName, QualifiedName>& names,
                       const std::unordered_map<std::string, std::string>& modules,
                       const std::string& module, const std::string& name) {
  if (auto it = names.find(QualifiedName(module, name)); it != names.end()) return it->second;
  if (auto it = modules.find(module); it != modules.end()) return {it->second, name};
  return {module, name};
}

}  // namespace

QualifiedName py3_to_py2(const std::string& module, const std::string& name) {
  const Tables& t = tables();
  return map_name(t.name_3to2, t.import_3to2, module, name);
}

QualifiedName py2_to_py3(const std::string& module, const std::string& name) {
  const Tables& t = tables();
  return map_name(t.name_2to3, t.import_2to3, module, name);
}

}  // namespace serialcheck::pickle
