// Package plainerr words the operating system's and encoding/json's errors
// as one sentence a person reads: "cannot read the configuration file X:
// it does not exist", "the configuration file X is not valid JSON: line 3,
// column 9: unexpected 'o'". Go's own texts ("open X: no such file or
// directory", "invalid character 'o' in literal null (expecting 'u')",
// "json: cannot unmarshal string into Go struct field …") name the system
// call or the Go type; these name the input at fault and what is wrong
// with it.
//
// Invariant: the sentence never repeats the underlying error's text, and
// the underlying error stays in the chain (errors.Is(err, fs.ErrNotExist)
// and errors.As(err, &syntaxErr) still hold).
package plainerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Error is a sentence with the error it describes underneath.
type Error struct {
	msg string
	err error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.err }

// File describes err, from doing verb ("read", "write", "open") to the
// file at path playing the part what ("the configuration file"):
// "cannot read the configuration file /x.json: it does not exist".
func File(verb, what, path string, err error) error {
	if err == nil {
		return nil
	}
	name := strings.TrimSpace(what + " " + path)
	return &Error{msg: fmt.Sprintf("cannot %s %s: %s", verb, name, Reason(err)), err: err}
}

// Reason is why an operation on a file failed, as the end of a sentence:
// "it does not exist", "permission is denied". Errors that are not the
// operating system's keep their own text.
func Reason(err error) string {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission is denied"
	case errors.Is(err, syscall.EISDIR):
		return "it is a folder, not a file"
	case errors.Is(err, syscall.ENOTDIR):
		return "a part of its path is a file, not a folder"
	case errors.Is(err, syscall.ELOOP):
		return "its symbolic links form a loop"
	case errors.Is(err, syscall.ENAMETOOLONG):
		return "its name is too long"
	case errors.As(err, &errno):
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// JSON describes a failure to decode data, the text of what ("the
// configuration file /x.json"), as JSON: "the configuration file /x.json
// is not valid JSON: line 3, column 9: unexpected 'o'", or, for a value
// of the wrong kind, "… does not fit: line 4: "default" must be a
// string, not a number".
func JSON(what string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	return &Error{msg: what + " " + jsonReason(data, err), err: err}
}

func jsonReason(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		if syn.Offset <= 0 || strings.Contains(syn.Error(), "end of JSON input") {
			return "is not valid JSON: it ends before its value does"
		}
		off := int(min(syn.Offset, int64(len(data)))) // just past the bad byte
		line, col := position(data, off-1)
		r, _ := utf8.DecodeRune(data[off-1:])
		return fmt.Sprintf("is not valid JSON: line %d, column %d: unexpected %s", line, col, quoteRune(r))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "is not valid JSON: it ends before its value does"
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the value"
		} else {
			field = fmt.Sprintf("%q", field)
		}
		where := ""
		if typ.Offset > 0 && int(typ.Offset) <= len(data) {
			// The offset is where the value ends; its line is enough.
			line, _ := position(data, int(typ.Offset)-1)
			where = fmt.Sprintf("line %d: ", line)
		}
		return fmt.Sprintf("does not fit: %s%s must be %s, not %s", where, field, kindOf(typ.Type), article(typ.Value))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return "does not fit: " + msg
}

// position is the 1-based line and column (in characters) of byte off.
func position(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

func quoteRune(r rune) string {
	switch r {
	case '\n':
		return "end of line"
	case utf8.RuneError:
		return "bytes that are not UTF-8"
	}
	return fmt.Sprintf("%q", r)
}

// kindOf names a Go type as JSON calls its values.
func kindOf(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// article puts "a" or "an" before encoding/json's name of a value's kind
// ("string", "number", "object", "array", "bool", "number 1.5").
func article(v string) string {
	switch {
	case v == "bool":
		return "true or false"
	case v == "":
		return "that"
	case strings.HasPrefix(v, "a") || strings.HasPrefix(v, "o"):
		return "an " + v
	}
	return "a " + v
}
