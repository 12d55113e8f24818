package results

import (
	"math"
	"reflect"
)

// CleanNumbers makes every number of f one JSON can hold, in place: a NaN
// or an infinity becomes absent where its field can be (a nil *float64)
// and 0 elsewhere. Write calls it, so writing a results file never fails
// on a number (encoding/json refuses NaN and infinities, and a run's file
// is rewritten after every run: one NaN made every later write fail). The
// parsers of outside pages refuse such values first (Limit); this is for
// whatever a computation makes of finite ones. It reports whether it
// changed anything.
func (f *File) CleanNumbers() bool {
	return cleanFloats(reflect.ValueOf(f).Elem())
}

func nonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// cleanFloats cleans the numbers reachable from v, which is settable
// (or a map's copy); types that hold no float are skipped without a look.
func cleanFloats(v reflect.Value) (changed bool) {
	if !holdsFloats(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if nonFinite(v.Float()) {
			v.SetFloat(0)
			return true
		}
	case reflect.Pointer:
		switch {
		case v.IsNil():
		case v.Elem().Kind() == reflect.Float64 && nonFinite(v.Elem().Float()):
			v.SetZero() // absent, not 0
			return true
		default:
			return cleanFloats(v.Elem())
		}
	case reflect.Interface:
		// no interface field holds numbers in a results file
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && cleanFloats(v.Field(i)) {
				changed = true
			}
		}
	case reflect.Slice, reflect.Array:
		if xs, ok := v.Interface().([]float64); ok { // the samples: most of a file's numbers
			for i, x := range xs {
				if nonFinite(x) {
					xs[i], changed = 0, true
				}
			}
			return changed
		}
		for i := range v.Len() {
			if cleanFloats(v.Index(i)) {
				changed = true
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(v.MapIndex(k))
			if cleanFloats(elem) {
				v.SetMapIndex(k, elem)
				changed = true
			}
		}
	}
	return changed
}

// floatSearch finds the types that can hold a float.
var floatSearch = &kindSearch{leaf: func(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }}

// holdsFloats reports whether a value of type t can hold a float.
func holdsFloats(t reflect.Type) bool { return floatSearch.holds(t) }
