// Command testee is a serialcheck testee (docs/testee-protocol.md) for the
// Go pickle library github.com/hydrogen18/stalecucumber: a reader of
// protocols 0-2 and a writer of protocol 2. It turns the canonical JSON form
// of a value (docs/value-json.md) into the Go values the library pickles,
// and what the library unpickles back into that form. The README lists what
// Go and the library lose.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hydrogen18/stalecucumber"
)

const libraryVersion = "0.0~git20180226" // the Debian package's snapshot; the library has no version constant

// unsupported: the value, protocol or option has no faithful form here.
type unsupported struct{ msg string }

func (u unsupported) Error() string { return u.msg }

func unsupportedf(format string, args ...interface{}) error {
	return unsupported{fmt.Sprintf(format, args...)}
}

// ---------------------------------------------------------------------------
// Reading: a resolver for the reduces the library leaves to its user.

// frozenSet is Python's frozenset: the library's builtin resolver knows set
// only, and answers a set as map[interface{}]bool, so this keeps them apart.
type frozenSet map[interface{}]bool

// reducedObject is callable(*args) for a global that names no builtin type.
type reducedObject struct {
	module, name string
	args         []interface{}
}

// builtinSpellings resolves what CPython 3 writes for bytes below protocol
// 3 (_codecs.encode(str, 'latin1')) and for frozenset below protocol 4, and
// describes any other reduce as a generic object. It runs after the
// library's own resolver (set, bytearray), so the library's answers stand.
type builtinSpellings struct{}

func latin1(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff || r == utf8.RuneError {
			return nil, false
		}
		out = append(out, byte(r))
	}
	return out, true
}

func (builtinSpellings) Resolve(module, name string, args []interface{}) (interface{}, error) {
	switch module + "." + name {
	case "_codecs.encode":
		if len(args) == 2 {
			s, ok1 := args[0].(string)
			enc, ok2 := args[1].(string)
			if ok1 && ok2 && enc == "latin1" {
				if b, ok := latin1(s); ok {
					return b, nil
				}
			}
		}
	case "__builtin__.bytes", "builtins.bytes":
		if len(args) == 0 {
			return []byte{}, nil
		}
	case "__builtin__.frozenset", "builtins.frozenset":
		if len(args) == 1 {
			if items, ok := args[0].([]interface{}); ok {
				set := make(frozenSet, len(items))
				for _, item := range items {
					set[item] = true // panics on an unhashable item, as the library's set does
				}
				return set, nil
			}
		}
	}
	return reducedObject{module: module, name: name, args: args}, nil
}

var resolver = stalecucumber.MakePythonResolverChain(stalecucumber.PythonBuiltinResolver{}, builtinSpellings{})

// unpickle runs the library and turns a panic inside it into an error.
func unpickle(data []byte) (v interface{}, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = libraryPanic{fmt.Sprint(r)}
		}
	}()
	return stalecucumber.UnpickleWithResolver(bytes.NewReader(data), resolver)
}

type libraryPanic struct{ msg string }

func (p libraryPanic) Error() string { return "panic in stalecucumber: " + p.msg }

// ---------------------------------------------------------------------------
// Go value -> canonical JSON text.

// pyFloatRepr is Python's repr(float): the shortest digits that read back
// to the same double, in Python's layout.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	at := strings.IndexByte(e, 'e')
	digits := strings.Replace(e[:at], ".", "", 1)
	exp, _ := strconv.Atoi(e[at+1:])
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es = "-"
			exp = -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
	}
	point := exp + 1
	switch {
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	}
	return sign + digits[:point] + "." + digits[point:]
}

func floatJSON(f float64) string {
	text := `{"float":"` + pyFloatRepr(f) + `"`
	if math.IsNaN(f) {
		if bits := math.Float64bits(f); bits != 0x7ff8000000000000 {
			text += fmt.Sprintf(`,"bits":"%016x"`, bits)
		}
	}
	return text + "}"
}

func bigJSON(v *big.Int) string {
	if v.IsInt64() {
		return v.String()
	}
	return `{"int":"` + v.String() + `"}`
}

// validSurrogatePass: UTF-8 in which lone surrogates are three-byte
// sequences (what CPython's pickler writes for them), so the text can go in
// a {"str-utf8sp": ...}.
func validSurrogatePass(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0xed && i+2 < len(s) && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2]&0xc0 == 0x80 {
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return false
		}
		i += n
	}
	return true
}

func strJSON(s string) (string, error) {
	if utf8.ValidString(s) {
		b, _ := json.Marshal(s)
		// encoding/json escapes <, > and & for HTML; the runner takes either
		// form, but the plain one is easier to read in a report.
		return string(unescapeHTML(b)), nil
	}
	if validSurrogatePass(s) {
		return `{"str-utf8sp":"` + hex.EncodeToString([]byte(s)) + `"}`, nil
	}
	return "", unsupportedf("a str whose bytes are not UTF-8 (%q)", s)
}

func unescapeHTML(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`\u003c`), []byte("<"))
	b = bytes.ReplaceAll(b, []byte(`\u003e`), []byte(">"))
	return bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
}

// writer turns what the library returns into JSON. The library keeps no
// sharing (the testee declares it lost), so the value is written as a tree;
// a map met again on its own path is a cycle, which a tree cannot hold.
type writer struct {
	out  strings.Builder
	path map[uintptr]bool
}

func (w *writer) pairs(kind string, n int, each func(func(k, v interface{}) error) error) error {
	w.out.WriteString(`{"` + kind + `":[`)
	i := 0
	err := each(func(k, v interface{}) error {
		if i > 0 {
			w.out.WriteByte(',')
		}
		i++
		w.out.WriteByte('[')
		if err := w.value(k); err != nil {
			return err
		}
		w.out.WriteByte(',')
		if err := w.value(v); err != nil {
			return err
		}
		w.out.WriteByte(']')
		return nil
	})
	w.out.WriteString("]}")
	return err
}

func (w *writer) items(kind string, items []interface{}) error {
	w.out.WriteString(`{"` + kind + `":[`)
	for i, item := range items {
		if i > 0 {
			w.out.WriteByte(',')
		}
		if err := w.value(item); err != nil {
			return err
		}
	}
	w.out.WriteString("]}")
	return nil
}

func (w *writer) enter(m interface{}) (func(), error) {
	p := reflect.ValueOf(m).Pointer()
	if w.path[p] {
		return nil, unsupportedf("a dict or set that contains itself (this testee declares sharing lost)")
	}
	w.path[p] = true
	return func() { delete(w.path, p) }, nil
}

func (w *writer) global(module, name string) error {
	m, err := strJSON(module)
	if err != nil {
		return err
	}
	n, err := strJSON(name)
	if err != nil {
		return err
	}
	w.out.WriteString(`{"global":[` + m + "," + n + "]}")
	return nil
}

func (w *writer) value(v interface{}) error {
	switch x := v.(type) {
	case nil, stalecucumber.PickleNone:
		w.out.WriteString("null")
	case bool:
		w.out.WriteString(strconv.FormatBool(x))
	case int64:
		w.out.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		w.out.WriteString(bigJSON(x))
	case big.Int:
		w.out.WriteString(bigJSON(&x))
	case float64:
		w.out.WriteString(floatJSON(x))
	case string:
		s, err := strJSON(x)
		if err != nil {
			return err
		}
		w.out.WriteString(s)
	case []byte:
		w.out.WriteString(`{"bytes":"` + hex.EncodeToString(x) + `"}`)
	case *strings.Reader:
		// The library's answer for bytearray: a reader over the bytes.
		data, _ := io.ReadAll(x)
		_, _ = x.Seek(0, io.SeekStart)
		w.out.WriteString(`{"bytearray":"` + hex.EncodeToString(data) + `"}`)
	case []interface{}:
		// Lists and tuples alike (declared: tuple).
		return w.items("list", x)
	case stalecucumber.PickleTuple:
		return w.items("tuple", x)
	case map[interface{}]interface{}:
		// A Go map has no order (declared: dict-order).
		leave, err := w.enter(x)
		if err != nil {
			return err
		}
		defer leave()
		return w.pairs("dict", len(x), func(emit func(k, v interface{}) error) error {
			for k, val := range x {
				if err := emit(k, val); err != nil {
					return err
				}
			}
			return nil
		})
	case map[interface{}]bool:
		return w.set("set", x)
	case frozenSet:
		return w.set("frozenset", x)
	case reducedObject:
		w.out.WriteString(`{"object":{"callable":`)
		if err := w.global(x.module, x.name); err != nil {
			return err
		}
		w.out.WriteString(`,"args":`)
		if err := w.items("tuple", x.args); err != nil {
			return err
		}
		w.out.WriteString("}}")
	default:
		return w.sentinel(v)
	}
	return nil
}

func (w *writer) set(kind string, m map[interface{}]bool) error {
	leave, err := w.enter(m)
	if err != nil {
		return err
	}
	defer leave()
	items := make([]interface{}, 0, len(m))
	for item := range m {
		items = append(items, item)
	}
	return w.items(kind, items)
}

// sentinel describes the library's unexported values for a bare global
// (GLOBAL without REDUCE) and an INST instance, read through reflection.
func (w *writer) sentinel(v interface{}) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct {
		pkg := rv.FieldByName("Package")
		name := rv.FieldByName("Name")
		if pkg.IsValid() && name.IsValid() && pkg.Kind() == reflect.String && name.Kind() == reflect.String {
			switch rv.Type().Name() {
			case "globalSentinel":
				return w.global(pkg.String(), name.String())
			case "instanceSentinel":
				args, _ := rv.FieldByName("Args").Interface().([]interface{})
				return w.value(reducedObject{module: pkg.String(), name: name.String(), args: args})
			}
		}
	}
	if _, ok := v.(stalecucumber.PickleMark); ok {
		return libraryError{"mark-as-value", "the stream left a MARK as its value"}
	}
	return unsupportedf("a %T from the library has no counterpart in the value model", v)
}

// ---------------------------------------------------------------------------
// Writing: canonical JSON -> the Go values stalecucumber pickles.

type builder struct {
	ids    map[int64]interface{} // id -> JSON node, for {"ref": n}
	active map[int64]bool        // ids being built: a ref to one is a cycle
}

func (b *builder) build(node interface{}) (interface{}, error) {
	switch x := node.(type) {
	case nil:
		return stalecucumber.PickleNone{}, nil
	case bool:
		return x, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		v, ok := new(big.Int).SetString(string(x), 10)
		if !ok {
			return nil, badRequest("a bare JSON number that is not an integer: " + string(x))
		}
		return v, nil
	case string:
		return x, nil
	case []interface{}:
		return nil, badRequest("a bare JSON array is not a value")
	case map[string]interface{}:
		return b.tagged(x)
	}
	return nil, badRequest(fmt.Sprintf("unexpected JSON %T", node))
}

func (b *builder) tagged(m map[string]interface{}) (interface{}, error) {
	if ref, ok := m["ref"]; ok {
		n, err := jsonInt(ref)
		if err != nil {
			return nil, err
		}
		if b.active[n] {
			return nil, unsupportedf("a cycle: stalecucumber's writer keeps no memo (this testee declares sharing lost)")
		}
		target, ok := b.ids[n]
		if !ok {
			return nil, badRequest(fmt.Sprintf("ref %d names no id", n))
		}
		// Without a memo the writer can only copy: the declared loss.
		return b.build(target)
	}
	if idv, ok := m["id"]; ok {
		n, err := jsonInt(idv)
		if err != nil {
			return nil, err
		}
		b.ids[n] = withoutID(m)
		b.active[n] = true
		defer delete(b.active, n)
	}
	switch {
	case m["int"] != nil:
		s, _ := m["int"].(string)
		v, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if !ok {
			return nil, badRequest("bad int " + s)
		}
		return v, nil
	case m["float"] != nil:
		s, _ := m["float"].(string)
		if bits, ok := m["bits"].(string); ok {
			u, err := strconv.ParseUint(bits, 16, 64)
			if err != nil {
				return nil, badRequest("bad bits " + bits)
			}
			return math.Float64frombits(u), nil
		}
		if s == "nan" {
			return math.Float64frombits(0x7ff8000000000000), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, badRequest("bad float " + s)
		}
		return f, nil
	case m["str"] != nil:
		s, _ := m["str"].(string)
		return s, nil
	case m["str-utf8sp"] != nil:
		h, _ := m["str-utf8sp"].(string)
		raw, err := hex.DecodeString(h)
		if err != nil {
			return nil, badRequest("bad str-utf8sp")
		}
		return string(raw), nil // BINUNICODE carries these bytes as they are
	case m["list"] != nil:
		return b.sequence(m["list"], false)
	case m["tuple"] != nil:
		return b.sequence(m["tuple"], true)
	case m["dict"] != nil:
		entries, _ := m["dict"].([]interface{})
		// stalecucumber writes a Go map, in random order (declared: dict-order).
		out := make(map[interface{}]interface{}, len(entries))
		for _, e := range entries {
			pair, _ := e.([]interface{})
			if len(pair) != 2 {
				return nil, badRequest("a dict entry that is not a pair")
			}
			k, err := b.build(pair[0])
			if err != nil {
				return nil, err
			}
			if !hashable(k) {
				return nil, unsupportedf("a dict key of Go type %T, which a Go map cannot hold", k)
			}
			v, err := b.build(pair[1])
			if err != nil {
				return nil, err
			}
			if _, ok := k.(*big.Int); ok {
				// The writer knows big.Int by value, which a Go map cannot hash;
				// a pointer would be keyed by its address.
				return nil, unsupportedf("a dict key that is an int beyond 64 bits, which a Go map cannot hold")
			}
			out[k] = v
		}
		return out, nil
	}
	for tag := range m {
		switch tag {
		case "bytes", "bytearray", "set", "frozenset", "global", "object", "persid", "buffer",
			"ndarray", "tensor", "module", "device-buffer":
			return nil, unsupportedf("stalecucumber's writer has no form for %s", tag)
		}
	}
	return nil, badRequest("a tagged object with no known tag")
}

func hashable(k interface{}) bool {
	switch k.(type) {
	case stalecucumber.PickleNone, bool, int64, float64, string, *big.Int:
		return true
	}
	return false
}

func withoutID(m map[string]interface{}) map[string]interface{} {
	c := make(map[string]interface{}, len(m))
	for k, v := range m {
		if k != "id" {
			c[k] = v
		}
	}
	return c
}

func (b *builder) sequence(node interface{}, tuple bool) (interface{}, error) {
	items, ok := node.([]interface{})
	if !ok {
		return nil, badRequest("a list or tuple whose items are not an array")
	}
	out := make([]interface{}, len(items))
	for i, item := range items {
		v, err := b.build(item)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if tuple {
		return stalecucumber.PickleTuple(out), nil
	}
	return out, nil
}

func jsonInt(v interface{}) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, badRequest("an id or ref that is not an integer")
	}
	return strconv.ParseInt(string(n), 10, 64)
}

type requestError struct{ msg string }

func (e requestError) Error() string { return e.msg }

func badRequest(msg string) error { return requestError{msg} }

func pickle(value interface{}, protocol int64) (out []byte, err error) {
	// A value the Go side cannot hold must be an answer, never a dead testee.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, unsupportedf("building the Go value panicked: %v", r)
		}
	}()
	if protocol != 2 {
		return nil, unsupportedf("stalecucumber writes protocol 2 only, not %d", protocol)
	}
	b := &builder{ids: map[int64]interface{}{}, active: map[int64]bool{}}
	v, err := b.build(value)
	if err != nil {
		return nil, err
	}
	return pickleGo(v)
}

func pickleGo(v interface{}) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = libraryPanic{fmt.Sprint(r)}
		}
	}()
	var buf bytes.Buffer
	if _, err := stalecucumber.NewPickler(&buf).Pickle(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ---------------------------------------------------------------------------
// Errors -> stable kinds.

type libraryError struct{ kind, msg string }

func (e libraryError) Error() string { return e.msg }

func errorKind(err error) string {
	var u unsupported
	if errors.As(err, &u) {
		return "unsupported"
	}
	var r requestError
	if errors.As(err, &r) {
		return "bad-request"
	}
	var le libraryError
	if errors.As(err, &le) {
		return le.kind
	}
	if _, ok := err.(libraryPanic); ok {
		return "panic"
	}
	inner := err
	if pme, ok := err.(stalecucumber.PickleMachineError); ok {
		inner = pme.Err
	}
	switch {
	case inner == io.EOF, inner == io.ErrUnexpectedEOF, inner == stalecucumber.ErrInputTruncated:
		return "truncated"
	case inner == stalecucumber.ErrOpcodeInvalid:
		return "invalid-opcode"
	case inner == stalecucumber.ErrOpcodeNotImplemented:
		return "opcode-not-implemented"
	case inner == stalecucumber.ErrStackTooSmall:
		return "stack-too-small"
	case inner == stalecucumber.ErrMarkNotFound:
		return "mark-not-found"
	case inner == stalecucumber.ErrNoResult:
		return "no-result"
	case inner == stalecucumber.ErrUnresolvablePythonGlobal:
		return "unresolvable-global"
	}
	switch inner.(type) {
	case stalecucumber.UnreducibleValueError:
		return "unreducible-value"
	case stalecucumber.UnbuildableValueError:
		return "unbuildable-value"
	case stalecucumber.UnparseablePythonGlobalError:
		return "unparseable-global"
	case stalecucumber.PicklingError:
		return "pickling-error"
	case libraryPanic:
		return "panic"
	}
	msg := inner.Error()
	switch {
	case strings.Contains(msg, "unhashable type"):
		return "unhashable-key" // a panic the library recovered from itself
	case strings.HasPrefix(msg, "Unsupported version"):
		return "unsupported-protocol"
	case strings.Contains(msg, "memo index"):
		return "bad-memo"
	case strings.Contains(msg, "strconv.") || strings.Contains(msg, "expected integer") ||
		strings.Contains(msg, "LONG opcode") || strings.Contains(msg, "unquote"):
		return "bad-literal"
	}
	return "pickle-error"
}

// ---------------------------------------------------------------------------
// The protocol loop.

type request struct {
	Op           string          `json:"op"`
	Operation    string          `json:"operation"`
	Iterations   int64           `json:"iterations"`
	Protocol     int64           `json:"protocol"`
	OutOfBand    bool            `json:"out_of_band"`
	Value        json.RawMessage `json:"value"`
	FrameLengths []uint64        `json:"frame_lengths"`
	Writeable    []bool          `json:"writeable"`
}

const maxDocument = 64 << 20

type conn struct {
	in  *bufio.Reader
	out *bufio.Writer
}

func (c *conn) read() (*request, [][]byte, error) {
	var n uint32
	if err := binary.Read(c.in, binary.LittleEndian, &n); err != nil {
		return nil, nil, err
	}
	if n > maxDocument {
		return nil, nil, fmt.Errorf("request document of %d bytes is over the limit", n)
	}
	doc := make([]byte, n)
	if _, err := io.ReadFull(c.in, doc); err != nil {
		return nil, nil, err
	}
	var req request
	// Frames follow whatever the document says; an undecodable document
	// carries none we could find, and is answered bad-request.
	if err := json.Unmarshal(doc, &req); err != nil {
		return &request{Op: "\x00bad:" + err.Error()}, nil, nil
	}
	frames := make([][]byte, len(req.FrameLengths))
	for i, l := range req.FrameLengths {
		if l > 1<<30 {
			return nil, nil, fmt.Errorf("frame of %d bytes is over the limit", l)
		}
		frames[i] = make([]byte, l)
		if _, err := io.ReadFull(c.in, frames[i]); err != nil {
			return nil, nil, err
		}
	}
	return &req, frames, nil
}

func (c *conn) send(doc map[string]interface{}, frames ...[]byte) {
	if len(frames) > 0 {
		lengths := make([]int, len(frames))
		for i, f := range frames {
			lengths[i] = len(f)
		}
		doc["frame_lengths"] = lengths
	}
	text, err := json.Marshal(doc)
	if err != nil {
		text = []byte(`{"ok":false,"error":{"kind":"internal","message":"cannot encode the response"}}`)
	}
	c.sendText(text, frames...)
}

func (c *conn) sendText(text []byte, frames ...[]byte) {
	_ = binary.Write(c.out, binary.LittleEndian, uint32(len(text)))
	_, _ = c.out.Write(text)
	for _, f := range frames {
		_, _ = c.out.Write(f)
	}
	_ = c.out.Flush()
}

// errorDoc is the answer to a request that failed with err.
func errorDoc(err error) map[string]interface{} {
	return map[string]interface{}{"ok": false, "error": map[string]string{"kind": errorKind(err), "message": err.Error()}}
}

func (c *conn) fail(err error) {
	c.send(errorDoc(err))
}

func decodeValue(raw json.RawMessage) (interface{}, error) {
	if len(raw) == 0 {
		return nil, badRequest("dumps without a value")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, badRequest("the value is not JSON: " + err.Error())
	}
	return v, nil
}

func loadToJSON(frames [][]byte) (string, error) {
	if len(frames) == 0 {
		return "", badRequest("loads needs frame 0, the pickle")
	}
	if len(frames) > 1 {
		return "", unsupportedf("stalecucumber has no out-of-band buffers")
	}
	v, err := unpickle(frames[0])
	if err != nil {
		return "", err
	}
	w := &writer{path: map[uintptr]bool{}}
	if err := w.value(v); err != nil {
		return "", err
	}
	return w.out.String(), nil
}

// tryLoads loads each frame as a pickle of its own, as a loads request
// would (the value turned into JSON too, so that what loads refuses is
// refused here), and answers for each {"ok": true} or the error loads would
// have answered; no values come back. A panic inside the library is
// recovered per stream by unpickle, as for loads.
func tryLoads(frames [][]byte) map[string]interface{} {
	results := make([]interface{}, len(frames))
	for i, frame := range frames {
		if _, err := loadToJSON([][]byte{frame}); err != nil {
			results[i] = errorDoc(err)
		} else {
			results[i] = map[string]interface{}{"ok": true}
		}
	}
	return map[string]interface{}{"ok": true, "results": results}
}

func hello() map[string]interface{} {
	return map[string]interface{}{
		"ok": true, "protocol": 1,
		"name":           "stalecucumber",
		"version":        libraryVersion,
		"implementation": "github.com/hydrogen18/stalecucumber (" + libraryVersion + "), built with Go",
		"capabilities": map[string]interface{}{
			"dumps": true, "loads": true,
			"write_protocols": []int{2}, "read_protocols": []int{0, 1, 2},
			"out_of_band": false, "limit_loader": false,
			"cpython_bytes": false, "python_values": false, "try_loads": true,
			"cannot_express": []string{"tuple", "sharing", "dict-order"},
			"kinds": []string{"none", "bool", "int", "float", "str", "bytes", "bytearray", "list", "tuple",
				"dict", "set", "frozenset", "global", "object"},
		},
	}
}

func bench(c *conn, req *request, frames [][]byte) {
	iterations := req.Iterations
	if iterations < 1 {
		iterations = 1
	}
	var run func() error
	switch req.Operation {
	case "dumps":
		value, err := decodeValue(req.Value)
		if err != nil {
			c.fail(err)
			return
		}
		b := &builder{ids: map[int64]interface{}{}, active: map[int64]bool{}}
		if req.Protocol != 2 {
			c.fail(unsupportedf("stalecucumber writes protocol 2 only, not %d", req.Protocol))
			return
		}
		v, err := b.build(value)
		if err != nil {
			c.fail(err)
			return
		}
		run = func() error { _, err := pickleGo(v); return err }
	case "loads":
		if len(frames) != 1 {
			c.fail(badRequest("bench loads needs exactly one frame"))
			return
		}
		run = func() error { _, err := unpickle(frames[0]); return err }
	default:
		c.fail(badRequest("unknown bench operation " + strconv.Quote(req.Operation)))
		return
	}
	if err := run(); err != nil { // a case the library rejects is reported, not timed
		c.fail(err)
		return
	}
	start := time.Now()
	for i := int64(0); i < iterations; i++ {
		_ = run()
	}
	c.send(map[string]interface{}{"ok": true, "iterations": iterations, "seconds": time.Since(start).Seconds()})
}

func main() {
	c := &conn{in: bufio.NewReaderSize(os.Stdin, 1<<16), out: bufio.NewWriterSize(os.Stdout, 1<<16)}
	// Standard output is the protocol's: nothing else may write there.
	os.Stdout = os.Stderr
	for {
		req, frames, err := c.read()
		if err != nil {
			if err != io.EOF {
				fmt.Fprintln(os.Stderr, "testee:", err)
				os.Exit(2)
			}
			return
		}
		switch req.Op {
		case "hello":
			c.send(hello())
		case "shutdown":
			c.send(map[string]interface{}{"ok": true})
			os.Exit(0)
		case "dumps":
			if req.OutOfBand {
				c.fail(unsupportedf("stalecucumber has no out-of-band buffers"))
				continue
			}
			value, err := decodeValue(req.Value)
			if err == nil {
				var data []byte
				if data, err = pickle(value, req.Protocol); err == nil {
					c.send(map[string]interface{}{"ok": true}, data)
					continue
				}
			}
			c.fail(err)
		case "loads":
			text, err := loadToJSON(frames)
			if err != nil {
				c.fail(err)
				continue
			}
			c.sendText([]byte(`{"ok":true,"value":` + text + `}`))
		case "try-loads":
			c.send(tryLoads(frames))
		case "bench":
			bench(c, req, frames)
		default:
			msg := "unknown op " + strconv.Quote(req.Op)
			if strings.HasPrefix(req.Op, "\x00bad:") {
				msg = "the request document is not a JSON object: " + req.Op[5:]
			}
			c.fail(badRequest(msg))
		}
	}
}
