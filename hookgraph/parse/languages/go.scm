; hookgraph query for Go. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name.definition.function
  body: (block)? @body) @definition.function

; func (s *Server) Serve(...): the receiver type qualifies the method
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @name.scope
        (pointer_type (type_identifier) @name.scope)
        (generic_type type: (type_identifier) @name.scope)
        (pointer_type (generic_type type: (type_identifier) @name.scope))
      ]))
  name: (field_identifier) @name.definition.method
  body: (block)? @body) @definition.method

(type_spec
  name: (type_identifier) @name.definition.struct
  type: (struct_type (field_declaration_list) @body)) @definition.struct

(type_spec
  name: (type_identifier) @name.definition.interface
  type: (interface_type "{" @body)) @definition.interface

; a named type that is neither a struct nor an interface (type Middlewares []func(http.Handler) http.Handler,
; type WalkFunc func(...) error, type methodTyp uint): it has its doc comment, and often methods
(type_spec
  name: (type_identifier) @name.definition.type
  type: [
    (function_type) (slice_type) (map_type) (array_type) (channel_type) (pointer_type)
    (type_identifier) (qualified_type) (generic_type)
  ]) @definition.type

; package-level named values: each name of `const X = ...` / `var ( X T; Y = z )` (DefaultLogger,
; RequestIDHeader, ErrNotFound); inside a function they are part of it, like everything there
((const_spec name: (identifier) @name.definition.constant) @definition.constant
  (#not-eq? @name.definition.constant "_"))
((var_spec name: (identifier) @name.definition.variable) @definition.variable
  (#not-eq? @name.definition.variable "_"))

; methods an interface declares
(interface_type
  (method_elem name: (field_identifier) @name.definition.method) @definition.method)

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

(import_spec
  path: (interpreted_string_literal (interpreted_string_literal_content) @name.reference.import))
(import_spec path: (raw_string_literal) @name.reference.import)

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (selector_expression field: (field_identifier) @name.reference.call)) @reference.call
; generic instantiation: Map[K, V](...)
(call_expression
  function: (index_expression operand: [
    (identifier) @name.reference.call
    (selector_expression field: (field_identifier) @name.reference.call)
  ])) @reference.call

; ---------------------------------------------------------------- inheritance

; struct embedding: type Server struct { Base; *pkg.Other; List[T] }
(field_declaration !name type: (type_identifier) @name.reference.inherits)
(field_declaration !name
  type: (qualified_type name: (type_identifier) @name.reference.inherits) @reference.inherits)
(field_declaration !name
  type: (generic_type type: (type_identifier) @name.reference.inherits) @reference.inherits)
; interface embedding: type ReadCloser interface { io.Reader; Closer }
(interface_type (type_elem . (type_identifier) @name.reference.inherits .))
(interface_type
  (type_elem . (qualified_type name: (type_identifier) @name.reference.inherits) @reference.inherits .))

; ---------------------------------------------------------------- declared types

; var g RouterGroup, c *Context (a parameter), router *RouterGroup (a struct field, the type's):
; the variable and its type, so that g.POST() is read as RouterGroup.POST
(var_spec name: (identifier) @name.reference.types type: (_) @module.reference.types)
(parameter_declaration name: (identifier) @name.reference.types type: (_) @module.reference.types)
(field_declaration name: (field_identifier) @name.reference.types type: (_) @module.reference.types)
; h := &Handler{...} / Handler{...}: the type is the one built
(short_var_declaration
  left: (expression_list . (identifier) @name.reference.builds .)
  right: (expression_list . [
    (composite_literal type: (type_identifier) @module.reference.builds)
    (unary_expression operand: (composite_literal type: (type_identifier) @module.reference.builds))
  ] .))
