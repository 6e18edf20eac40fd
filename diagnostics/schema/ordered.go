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
	inner := indent + "  "
	switch v.kind {
	case '{':
		if len(v.members) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteString("{\n")
		for i, m := range v.members {
			buf.WriteString(inner)
			writeScalar(buf, m.key)
			buf.WriteString(": ")
			m.val.encode(buf, inner)
			if i < len(v.members)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "}")
	case '[':
		if len(v.items) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteString("[\n")
		for i, it := range v.items {
			buf.WriteString(inner)
			it.encode(buf, inner)
			if i < len(v.items)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "]")
	default:
		writeScalar(buf, v.scalar)
	}
}

func writeScalar(buf *bytes.Buffer, s any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // strings, numbers, booleans and null always encode
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
