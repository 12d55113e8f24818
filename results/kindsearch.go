package results

import (
	"reflect"
	"sync"
)

// kindSearch answers, once per type, whether a value of a type can hold a
// value of a leaf kind: through pointers, slices, arrays, exported struct
// fields and map values, and map keys when keys is set. The float and the
// string walks over a results file skip the types it says cannot.
type kindSearch struct {
	leaf  func(reflect.Kind) bool
	keys  bool
	cache sync.Map // reflect.Type → bool
}

func (s *kindSearch) holds(t reflect.Type) bool {
	if v, ok := s.cache.Load(t); ok {
		return v.(bool)
	}
	s.cache.Store(t, true) // a recursive type holds what it holds; assume so while looking
	var has bool
	switch k := t.Kind(); {
	case s.leaf(k):
		has = true
	case k == reflect.Pointer || k == reflect.Slice || k == reflect.Array:
		has = s.holds(t.Elem())
	case k == reflect.Map:
		has = (s.keys && s.holds(t.Key())) || s.holds(t.Elem())
	case k == reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && s.holds(f.Type) {
				has = true
				break
			}
		}
	}
	s.cache.Store(t, has)
	return has
}
