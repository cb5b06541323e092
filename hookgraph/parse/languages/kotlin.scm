; hookgraph query for Kotlin. Capture convention: docs/languages.md
;
; The grammar has one class_declaration for classes, interfaces and enum classes
; (told apart by their keyword). When several patterns match one node the first
; pattern names the kind, so the specific ones (interface, enum) come first.

; ---------------------------------------------------------------- definitions

(class_declaration
  "interface"
  (type_identifier) @name.definition.interface
  (class_body)? @body) @definition.interface

(class_declaration
  "enum"
  (type_identifier) @name.definition.enum
  (enum_class_body)? @body) @definition.enum

(class_declaration
  (type_identifier) @name.definition.class
  (class_body)? @body) @definition.class

; object Foo { ... }: a singleton class. A companion object is not a unit: its
; members are called through the class (ClipboardFileProvider.getUriForFile).
(object_declaration
  (type_identifier) @name.definition.class
  (class_body)? @body) @definition.class

(function_declaration
  (simple_identifier) @name.definition.function
  (function_body)? @body) @definition.function

; fun File.ensureExists(): an extension function is a member of its receiver type
(function_declaration
  receiver: (receiver_type [
    (user_type (type_identifier) @name.scope .)
    (user_type (type_identifier) @name.scope . (type_arguments) .)
    (nullable_type (user_type (type_identifier) @name.scope .))
  ])
  (simple_identifier) @name.definition.function) @definition.function

; constructor(...) : this(...) { ... }
(secondary_constructor
  "constructor" @name.definition.function
  (statements)? @body) @definition.function

; top-level values: val HttpTimeout = createClientPlugin("HttpTimeout", ...) { ... } is how Ktor defines a
; plugin, and const val MAX_RETRIES = 3 a setting (a class's properties stay part of it)
(source_file
  (property_declaration
    (variable_declaration (simple_identifier) @name.definition.variable)) @definition.variable)

; typealias Handler = (Int) -> Unit
(type_alias (type_identifier) @name.definition.type) @definition.type

; ---------------------------------------------------------------- documentation

(line_comment) @comment
(multiline_comment) @comment
(annotation) @annotation

; ---------------------------------------------------------------- imports

(import_header (identifier) @name.reference.import)

; ---------------------------------------------------------------- calls

(call_expression (simple_identifier) @name.reference.call) @reference.call
(call_expression
  (navigation_expression
    (navigation_suffix (simple_identifier) @name.reference.call) .)) @reference.call

; ---------------------------------------------------------------- inheritance

; class A : Base(), Iface, Other by delegate; the last name of a user type
; (Bitmap.CompressFormat), with or without type arguments (Base<String>)
(delegation_specifier [
  (user_type (type_identifier) @name.reference.inherits .)
  (user_type (type_identifier) @name.reference.inherits . (type_arguments) .)
] @reference.inherits)
(delegation_specifier
  (constructor_invocation [
    (user_type (type_identifier) @name.reference.inherits .)
    (user_type (type_identifier) @name.reference.inherits . (type_arguments) .)
  ] @reference.inherits))
(delegation_specifier
  (explicit_delegation [
    (user_type (type_identifier) @name.reference.inherits .)
    (user_type (type_identifier) @name.reference.inherits . (type_arguments) .)
  ] @reference.inherits))

; ---------------------------------------------------------------- declared types

; val req: HttpRequest = ..., call: HttpClientCall (a parameter), private val client: HttpClient (a
; constructor property, the class's): the variable and its type, so that req.execute() is read as
; HttpRequest.execute
(property_declaration
  (variable_declaration (simple_identifier) @name.reference.types (user_type) @module.reference.types))
(parameter (simple_identifier) @name.reference.types (user_type) @module.reference.types)
(class_parameter (simple_identifier) @name.reference.types (user_type) @module.reference.types)
; val builder = HttpRequestBuilder(): a capitalised call builds that class
(property_declaration
  (variable_declaration (simple_identifier) @name.reference.builds . )
  (call_expression . (simple_identifier) @module.reference.builds)
  (#match? @module.reference.builds "^[A-Z]"))
