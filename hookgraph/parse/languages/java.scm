; hookgraph query for Java. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name.definition.class
  body: (class_body) @body) @definition.class

(record_declaration
  name: (identifier) @name.definition.class
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (identifier) @name.definition.interface
  body: (interface_body) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name.definition.interface
  body: (annotation_type_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum
  body: (enum_body) @body) @definition.enum

; abstract and interface methods have no body
(method_declaration
  name: (identifier) @name.definition.method
  body: (block)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name.definition.method
  body: (constructor_body) @body) @definition.method

; ---------------------------------------------------------------- documentation

(line_comment) @comment
(block_comment) @comment

; ---------------------------------------------------------------- imports

(import_declaration (scoped_identifier) @name.reference.import)
(import_declaration (identifier) @name.reference.import)

; ---------------------------------------------------------------- calls

(method_invocation name: (identifier) @name.reference.call) @reference.call
(object_creation_expression
  type: [
    (type_identifier) @name.reference.call
    (generic_type (type_identifier) @name.reference.call)
    (scoped_type_identifier (type_identifier) @name.reference.call .)
  ] @reference.call)

; ---------------------------------------------------------------- inheritance

(superclass (type_identifier) @name.reference.inherits)
(superclass (generic_type (type_identifier) @name.reference.inherits) @reference.inherits)
(superclass
  (scoped_type_identifier (type_identifier) @name.reference.inherits .) @reference.inherits)
(super_interfaces (type_list (type_identifier) @name.reference.inherits))
(super_interfaces
  (type_list (generic_type (type_identifier) @name.reference.inherits) @reference.inherits))
(super_interfaces
  (type_list (scoped_type_identifier (type_identifier) @name.reference.inherits .) @reference.inherits))
(extends_interfaces (type_list (type_identifier) @name.reference.inherits))
(extends_interfaces
  (type_list (generic_type (type_identifier) @name.reference.inherits) @reference.inherits))
(extends_interfaces
  (type_list (scoped_type_identifier (type_identifier) @name.reference.inherits .) @reference.inherits))

; ---------------------------------------------------------------- declared types

; JsonWriter writer = ..., Gson gson (a parameter), private final JsonArray items (a field, the class's):
; the variable and its type, so that writer.flush() is read as JsonWriter.flush
(local_variable_declaration type: (_) @module.reference.types
  declarator: (variable_declarator name: (identifier) @name.reference.types))
(field_declaration type: (_) @module.reference.types
  declarator: (variable_declarator name: (identifier) @name.reference.types))
(formal_parameter type: (_) @module.reference.types name: (identifier) @name.reference.types)
; var reader = new JsonReader(in): the type is the one built
(local_variable_declaration type: (type_identifier) @_var
  declarator: (variable_declarator name: (identifier) @name.reference.builds
    value: (object_creation_expression type: (_) @module.reference.builds))
  (#eq? @_var "var"))
