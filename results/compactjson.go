package results

import "bytes"

// collapseScalarArrays rewrites indented JSON so that every array holding
// only numbers, booleans and nulls sits on one line: the per-request
// columns and samples would otherwise take a line (and its indent) per
// value, several times the size of the numbers. Arrays of strings, objects
// or arrays keep their layout. b must be valid JSON.
func collapseScalarArrays(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			end := stringEnd(b, i)
			out = append(out, b[i:end]...)
			i = end - 1
		case '[':
			end, ok := scalarArrayEnd(b, i)
			if !ok {
				out = append(out, c)
				continue
			}
			out = append(out, '[')
			for _, v := range b[i+1 : end] {
				if v != ' ' && v != '\n' && v != '\t' && v != '\r' {
					out = append(out, v)
				}
			}
			out = append(out, ']')
			i = end
		default:
			out = append(out, c)
		}
	}
	return out
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// scalarArrayEnd returns the index of the ']' closing the array at b[i]
// when the array holds no string, object or array.
func scalarArrayEnd(b []byte, i int) (int, bool) {
	j := bytes.IndexAny(b[i+1:], `"{[]`)
	if j < 0 || b[i+1+j] != ']' {
		return 0, false
	}
	return i + 1 + j, true
}
