; hookgraph query for OCaml (.ml; .mli interfaces too). Capture convention:
; docs/languages.md
;
; Units: functions (a let binding with parameters, or bound to fun/function),
; modules and functors (kind module: their definitions are prefixed M.f),
; module types (interface; their function vals are methods), classes and their
; methods, records (struct) and variants (enum). Edges: open M -> imports;
; include M, a module's signature constraint (module M : S) and a class's
; inherit -> inherits; applications, method calls (obj#m) and functor
; applications (module P = Make (...)) -> calls.

; ---------------------------------------------------------------- definitions

(let_binding
  pattern: (value_name) @name.definition.function
  (parameter)
  body: (_) @body) @definition.function

(let_binding
  pattern: (value_name) @name.definition.function
  body: [(fun_expression) (function_expression)] @body) @definition.function

(module_binding
  (module_name) @name.definition.module
  body: (_) @body) @definition.module

(module_type_definition
  (module_type_name) @name.definition.interface
  body: (_)? @body) @definition.interface

(value_specification
  (value_name) @name.definition.function
  type: (function_type)) @definition.function

(external
  (value_name) @name.definition.function
  type: (function_type)) @definition.function

(class_binding
  (class_name) @name.definition.class
  body: (_) @body) @definition.class

(method_definition
  (method_name) @name.definition.method
  body: (_) @body) @definition.method

(type_binding
  name: (type_constructor) @name.definition.struct
  body: (record_declaration) @body) @definition.struct

(type_binding
  name: (type_constructor) @name.definition.enum
  body: (variant_declaration) @body) @definition.enum

; ---------------------------------------------------------------- documentation

(comment) @comment
(attribute) @annotation
(item_attribute) @annotation

; ---------------------------------------------------------------- imports

(open_module module: (module_path) @name.reference.import)

; ---------------------------------------------------------------- calls

(application_expression
  function: (value_path (value_name) @name.reference.call) @reference.call)
(application_expression
  function: (method_invocation method: (method_name) @name.reference.call) @reference.call)
(module_application
  functor: (module_path (module_name) @name.reference.call .) @reference.call)

; ---------------------------------------------------------------- inheritance

(include_module module: (module_path (module_name) @name.reference.inherits .) @reference.inherits)
(module_binding
  module_type: (module_type_path (module_type_name) @name.reference.inherits .) @reference.inherits)
(inheritance_definition
  class: [
    (class_path (class_name) @name.reference.inherits .)
    (class_application class: (class_path (class_name) @name.reference.inherits .))
  ] @reference.inherits)
