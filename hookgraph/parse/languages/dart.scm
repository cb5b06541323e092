; hookgraph query for Dart. Capture convention: docs/languages.md
;
; The grammar writes a function or method as a signature node followed by a
; sibling function_body; both are captured as the definition, so the unit runs
; from the signature to the end of the body.

; ---------------------------------------------------------------- definitions

(class_definition
  name: (identifier) @name.definition.class
  body: (class_body) @body) @definition.class

(mixin_declaration
  (identifier) @name.definition.trait
  (class_body) @body) @definition.trait

(enum_declaration
  name: (identifier) @name.definition.enum
  body: (enum_body) @body) @definition.enum

; extension StrX on String { ... }
(extension_declaration
  name: (identifier) @name.definition.class
  body: (extension_body) @body) @definition.class

; top-level functions and methods: name(...) { ... } / => expr
(_
  (function_signature name: (identifier) @name.definition.function) @definition.function
  .
  (function_body) @body @definition.function)

(_
  (method_signature [
    (function_signature name: (identifier) @name.definition.function)
    (getter_signature name: (identifier) @name.definition.function)
    (setter_signature name: (identifier) @name.definition.function)
    ; constructors are named by the identifier before their parameters: Foo(...) or Foo.named(...)
    (factory_constructor_signature (identifier) @name.definition.function . (formal_parameter_list))
    (constructor_signature name: (identifier) @name.definition.function . parameters: (_))
    (operator_signature [(binary_operator) (tilde_operator) "[]" "[]="] @name.definition.function)
  ]) @definition.function
  .
  (function_body) @body @definition.function)

; abstract members and constructors without a body: Future<void> signOut();
(declaration (function_signature name: (identifier) @name.definition.function)) @definition.function
(declaration (getter_signature name: (identifier) @name.definition.function)) @definition.function
(declaration
  [(constructor_signature name: (identifier) @name.definition.function . parameters: (_))
   (constant_constructor_signature (identifier) @name.definition.function . (formal_parameter_list))
   (factory_constructor_signature (identifier) @name.definition.function . (formal_parameter_list))
   (redirecting_factory_constructor_signature
     (identifier) @name.definition.function . (formal_parameter_list))]) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment
(documentation_comment) @comment
(annotation) @annotation

; ---------------------------------------------------------------- imports

(library_import (import_specification (configurable_uri (uri (string_literal) @name.reference.import))))
(library_export (configurable_uri (uri (string_literal) @name.reference.import)))
(part_directive (uri (string_literal) @name.reference.import))

; ---------------------------------------------------------------- calls

; a call is a name followed by a selector holding the argument list
(_
  (identifier) @name.reference.call
  .
  (selector (argument_part)))
(_
  (identifier) @name.reference.call
  .
  (selector (type_arguments))
  .
  (selector (argument_part)))
; receiver.method(...), receiver?.method(...), this.m(), super.m(); chains keep the last name
(_
  [(identifier) (this) (super)] @reference.call
  .
  (selector [
    (unconditional_assignable_selector (identifier) @name.reference.call)
    (conditional_assignable_selector (identifier) @name.reference.call)
  ])
  .
  (selector (argument_part)))
(_
  (super) @reference.call
  .
  (unconditional_assignable_selector (identifier) @name.reference.call)
  .
  (selector (argument_part)))
(_
  (selector)
  .
  (selector [
    (unconditional_assignable_selector (identifier) @name.reference.call)
    (conditional_assignable_selector (identifier) @name.reference.call)
  ])
  .
  (selector (argument_part)))
(new_expression (type_identifier) @name.reference.call)
(const_object_expression (type_identifier) @name.reference.call)

; ---------------------------------------------------------------- inheritance

; class A extends B<T> with M implements I (a prefixed p.I2 keeps the last name)
(superclass (type_identifier) @name.reference.inherits .)
(superclass (type_identifier) @name.reference.inherits . (type_arguments))
(superclass (type_identifier) @name.reference.inherits . (mixins))
(mixins (type_identifier) @name.reference.inherits)
(interfaces (type_identifier) @name.reference.inherits)
(mixin_declaration "on" (type_identifier) @name.reference.inherits)
