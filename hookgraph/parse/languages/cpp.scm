; hookgraph query for C++. Capture convention: docs/languages.md
; Namespaces qualify (net::Client::send) without being units; a method defined
; out of line (void Client::send() {}) is qualified by its written scope.

; ---------------------------------------------------------------- definitions

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name.namespace
  body: (declaration_list) @body) @namespace

(class_specifier
  name: (type_identifier) @name.definition.class
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list) @body) @definition.struct

; a nested class defined out of line: class VersionSet::Builder {}, struct SkipList<K, C>::Node {}
(class_specifier
  name: [
    (qualified_identifier name: (type_identifier) @name.definition.class)
    (qualified_identifier name: (qualified_identifier name: (type_identifier) @name.definition.class))
  ] @name.scope
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: [
    (qualified_identifier name: (type_identifier) @name.definition.struct)
    (qualified_identifier name: (qualified_identifier name: (type_identifier) @name.definition.struct))
  ] @name.scope
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list) @body) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list) @body) @definition.enum

(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name.definition.struct) @definition.struct

; functions and methods defined here: f(), Class() and ~Class() and operator== in a
; class body; T& f(), T* f(), T** f(). As in c.scm: `API_MACRO RetType name(args)` puts the
; name in an ERROR node, and a statement after a macro is no definition of `if`.
(function_definition
  type: (_)
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name.definition.function . parameters: (parameter_list))
    (function_declarator (ERROR (identifier) @name.definition.function .) . parameters: (parameter_list))
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name.definition.function))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name.definition.function))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name.definition.function)))
  ]
  body: (_) @body
  (#not-match? @name.definition.function "^(if|else|while|for|do|switch|case|return|sizeof|goto)$")) @definition.function

; without a return type: constructors, destructors, conversions; an upper-case "name" there
; is a macro that writes the function (next pattern), not the function
(function_definition
  !type
  declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name.definition.function . parameters: (parameter_list))
  body: (_) @body
  (#not-match? @name.definition.function "^(if|else|while|for|do|switch|case|return|sizeof|goto)$")
  (#not-match? @name.definition.function "^[A-Z][A-Z0-9_]*$")) @definition.function

; a function written by a macro, named by its last argument: NAPI_METHOD(db_open) {},
; TEST(DBTest, Empty) {}
(function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list (parameter_declaration !declarator type: (type_identifier) @name.definition.function) .))
  body: (compound_statement) @body
  (#match? @_macro "^[A-Z][A-Z0-9_]*$")) @definition.function

; defined out of line: void Client::send() {}, ns::Client::~Client() {}, T& Vec<T>::at() {}
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function) @name.scope)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function) @name.scope))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function) @name.scope))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function) @name.scope)))
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function)) @name.scope)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function)) @name.scope))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function)) @name.scope))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function)) @name.scope)))
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name.definition.function))) @name.scope)
  ]
  body: (_) @body) @definition.function

; declared with a comment right above (a documented API in a header or class body);
; undocumented declarations are left out (their definitions are units)
((comment) @_doc
  .
  [
    (declaration declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name.definition.function . parameters: (parameter_list))
      (function_declarator (ERROR (identifier) @name.definition.function .) . parameters: (parameter_list))
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name.definition.function))
      (reference_declarator (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name.definition.function))
    ])
    (field_declaration declarator: [
      (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name.definition.function)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name.definition.function))
      (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name.definition.function))
    ])
  ] @definition.function)

(preproc_function_def name: (identifier) @name.definition.function) @definition.function

; namespace-level aliases: using format_args = basic_format_args<context>; (a class's `using value_type = T;`
; is no unit of its own)
(translation_unit (alias_declaration name: (type_identifier) @name.definition.type) @definition.type)
(namespace_definition body: (declaration_list
  (alias_declaration name: (type_identifier) @name.definition.type) @definition.type))

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

(preproc_include path: (string_literal (string_content) @name.reference.import))
(preproc_include path: (system_lib_string) @name.reference.import)
(using_declaration [(identifier) (qualified_identifier)] @name.reference.import)

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name.reference.call)) @reference.call
(call_expression
  function: (qualified_identifier name: (identifier) @name.reference.call)) @reference.call
(call_expression
  function: (qualified_identifier name: (qualified_identifier name: (identifier) @name.reference.call))) @reference.call
(call_expression
  function: (template_function name: (identifier) @name.reference.call)) @reference.call
(call_expression
  function: (qualified_identifier name: (template_function name: (identifier) @name.reference.call))) @reference.call
(call_expression
  function: (field_expression field: (template_method name: (field_identifier) @name.reference.call))) @reference.call
(new_expression type: (type_identifier) @name.reference.call) @reference.call

; ---------------------------------------------------------------- inheritance

(base_class_clause (type_identifier) @name.reference.inherits)
(base_class_clause
  (qualified_identifier name: (type_identifier) @name.reference.inherits) @reference.inherits)
(base_class_clause
  (template_type name: (type_identifier) @name.reference.inherits) @reference.inherits)
(base_class_clause
  (qualified_identifier name: (template_type name: (type_identifier) @name.reference.inherits)) @reference.inherits)

; ---------------------------------------------------------------- declared types

; Keyset &keyset, scoped_ptr<LoudsTrie> temp(...), State *state_: the variable and its type, so that
; temp.get() is read as scoped_ptr::get (a class's fields are the class's)
(parameter_declaration type: (_) @module.reference.types
  declarator: [
    (identifier) @name.reference.types
    (reference_declarator (identifier) @name.reference.types)
    (pointer_declarator declarator: (identifier) @name.reference.types)
  ])
(declaration type: (_) @module.reference.types
  declarator: [
    (identifier) @name.reference.types
    (reference_declarator (identifier) @name.reference.types)
    (pointer_declarator declarator: (identifier) @name.reference.types)
    (init_declarator declarator: [
      (identifier) @name.reference.types
      (reference_declarator (identifier) @name.reference.types)
      (pointer_declarator declarator: (identifier) @name.reference.types)
    ])
  ])
(field_declaration type: (_) @module.reference.types
  declarator: [
    (field_identifier) @name.reference.types
    (pointer_declarator declarator: (field_identifier) @name.reference.types)
    (reference_declarator (field_identifier) @name.reference.types)
  ])
