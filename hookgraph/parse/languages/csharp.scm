; hookgraph query for C#. Capture convention: docs/languages.md
; Namespace.Class.Method: namespaces (block or file-scoped) qualify without being units.

; ---------------------------------------------------------------- definitions

(namespace_declaration
  name: [(identifier) (qualified_name)] @name.namespace
  body: (declaration_list) @body) @namespace

; namespace App.Net;  covers the rest of the file
(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name.namespace) @namespace

(class_declaration
  name: (identifier) @name.definition.class
  body: (declaration_list) @body) @definition.class

(record_declaration
  name: (identifier) @name.definition.class) @definition.class

(struct_declaration
  name: (identifier) @name.definition.struct
  body: (declaration_list) @body) @definition.struct

(interface_declaration
  name: (identifier) @name.definition.interface
  body: (declaration_list) @body) @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum
  body: (enum_member_declaration_list) @body) @definition.enum

; interface and abstract methods have no body
(method_declaration name: (identifier) @name.definition.method) @definition.method
(method_declaration
  name: (identifier) @name.definition.method
  body: [(block) (arrow_expression_clause)] @body) @definition.method

(constructor_declaration
  name: (identifier) @name.definition.method
  body: (block) @body) @definition.method

(destructor_declaration
  name: (identifier) @name.definition.method
  body: (block) @body) @definition.method

(operator_declaration
  operator: _ @name.definition.method
  body: [(block) (arrow_expression_clause)] @body) @definition.method

; properties with code: { get { ... } } or => expression (auto-properties are data)
(property_declaration
  name: (identifier) @name.definition.method
  accessors: (accessor_list (accessor_declaration body: [(block) (arrow_expression_clause)]))) @definition.method
(property_declaration
  name: (identifier) @name.definition.method
  value: (arrow_expression_clause) @body) @definition.method

(local_function_statement
  name: (identifier) @name.definition.function
  body: (block) @body) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment
(attribute_list) @annotation

; ---------------------------------------------------------------- imports

(using_directive [(identifier) (qualified_name)] @name.reference.import)

; ---------------------------------------------------------------- calls

(invocation_expression function: (identifier) @name.reference.call) @reference.call
(invocation_expression
  function: (member_access_expression name: (identifier) @name.reference.call)) @reference.call
(invocation_expression
  function: (member_access_expression name: (generic_name (identifier) @name.reference.call))) @reference.call
(invocation_expression function: (generic_name (identifier) @name.reference.call)) @reference.call
(object_creation_expression
  type: [
    (identifier) @name.reference.call
    (generic_name (identifier) @name.reference.call)
    (qualified_name name: (identifier) @name.reference.call)
  ]) @reference.call

; ---------------------------------------------------------------- inheritance

(base_list (identifier) @name.reference.inherits)
(base_list (generic_name (identifier) @name.reference.inherits) @reference.inherits)
(base_list (qualified_name name: (identifier) @name.reference.inherits) @reference.inherits)
(base_list (qualified_name name: (generic_name (identifier) @name.reference.inherits)) @reference.inherits)
