package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// value is a JSON value that keeps the order of its object members, so a
// schema filtered for a release reads like the file it was written as.
type value struct {
	// kind is '{' for an object, '[' for an array, 0 for a scalar.
	kind    byte
	members []member
	items   []*value
	scalar  any // string, json.Number, bool or nil
}

type member struct {
	key string
	val *value
}

func parseOrdered(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the top-level value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		v := &value{kind: '{'}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			child, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, member{key: k.(string), val: child})
		}
		_, err := dec.Token() // '}'
		return v, err
	case json.Delim('['):
		v := &value{kind: '['}
		for dec.More() {
			child, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, child)
		}
		_, err := dec.Token() // ']'
		return v, err
	}
	return &value{scalar: tok}, nil
}

// get is the member key of an object, or nil.
func (v *value) get(key string) *value {
	for _, m := range v.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces the member key, or appends it.
func (v *value) set(key string, val *value) {
	for i, m := range v.members {
		if m.key == key {
			v.members[i].val = val
			return
		}
	}
	v.members = append(v.members, member{key: key, val: val})
}

func (v *value) str() string {
	s, _ := v.scalar.(string)
	return s
}

// encode writes v indented by two spaces per level, the layout of the
// committed schemas.
func (v *value) encode(buf *bytes.Buffer, indent string) {
	switch v.kind {
	case '{':
		encodeList(buf, indent, "{", "}", len(v.members), func(i int, inner string) {
			writeScalar(buf, v.members[i].key)
			buf.WriteString(": ")
			v.members[i].val.encode(buf, inner)
		})
	case '[':
		encodeList(buf, indent, "[", "]", len(v.items), func(i int, inner string) {
			v.items[i].encode(buf, inner)
		})
	default:
		writeScalar(buf, v.scalar)
	}
}

// encodeList writes n elements between open and close, one per line,
// each written by element at the next indentation.
func encodeList(buf *bytes.Buffer, indent, open, close string, n int, element func(i int, inner string)) {
	if n == 0 {
		buf.WriteString(open + close)
		return
	}
	inner := indent + "  "
	buf.WriteString(open + "\n")
	for i := range n {
		buf.WriteString(inner)
		element(i, inner)
		if i < n-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(indent + close)
}

func writeScalar(buf *bytes.Buffer, s any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // strings, numbers, booleans and null always encode
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
