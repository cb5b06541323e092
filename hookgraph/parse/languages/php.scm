; hookgraph query for PHP. Capture convention: docs/languages.md
; Qualified names: namespace parts joined by "\", members by "::" (Foo\Bar::baz).

; ---------------------------------------------------------------- namespaces

; namespace Foo\Bar;  (applies to the rest of the file)  /  namespace Foo\Bar { ... }
(namespace_definition
  name: (namespace_name) @name.namespace
  body: (compound_statement)? @body) @namespace

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (name) @name.definition.class
  body: (declaration_list) @body) @definition.class

(interface_declaration
  name: (name) @name.definition.interface
  body: (declaration_list) @body) @definition.interface

(trait_declaration
  name: (name) @name.definition.trait
  body: (declaration_list) @body) @definition.trait

(enum_declaration
  name: (name) @name.definition.enum
  body: (enum_declaration_list) @body) @definition.enum

(function_definition
  name: (name) @name.definition.function
  body: (compound_statement) @body) @definition.function

(method_declaration
  name: (name) @name.definition.function
  body: (compound_statement)? @body) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment
(attribute_list) @annotation

; ---------------------------------------------------------------- imports

; use Foo\Bar; use Foo\Bar as Baz; use function Foo\f;
(namespace_use_declaration
  (namespace_use_clause [(qualified_name) (name)] @name.reference.import))
; use Foo\{Bar, Baz as B};
(namespace_use_declaration
  (namespace_name) @module.reference.import
  body: (namespace_use_group
    (namespace_use_clause . (name) @name.reference.import)))
; require 'x.php'; include_once __DIR__.'/x.php';
(require_expression [(string (string_content) @name.reference.import)
  (encapsed_string (string_content) @name.reference.import)
  (binary_expression right: [(string (string_content) @name.reference.import)
                             (encapsed_string (string_content) @name.reference.import)])])
(require_once_expression [(string (string_content) @name.reference.import)
  (encapsed_string (string_content) @name.reference.import)
  (binary_expression right: [(string (string_content) @name.reference.import)
                             (encapsed_string (string_content) @name.reference.import)])])
(include_expression [(string (string_content) @name.reference.import)
  (encapsed_string (string_content) @name.reference.import)
  (binary_expression right: [(string (string_content) @name.reference.import)
                             (encapsed_string (string_content) @name.reference.import)])])
(include_once_expression [(string (string_content) @name.reference.import)
  (encapsed_string (string_content) @name.reference.import)
  (binary_expression right: [(string (string_content) @name.reference.import)
                             (encapsed_string (string_content) @name.reference.import)])])

; ---------------------------------------------------------------- calls

(function_call_expression
  function: [(name) @name.reference.call
             (qualified_name (name) @name.reference.call .)]) @reference.call
(member_call_expression name: (name) @name.reference.call) @reference.call
(nullsafe_member_call_expression name: (name) @name.reference.call) @reference.call
(scoped_call_expression name: (name) @name.reference.call) @reference.call
; new Foo(...) runs Foo's constructor: a call of the class
(object_creation_expression [(name) @name.reference.call
                             (qualified_name (name) @name.reference.call .)])

; ---------------------------------------------------------------- inheritance

(base_clause [(name) @name.reference.inherits
              (qualified_name (name) @name.reference.inherits .) @reference.inherits])
(class_interface_clause [(name) @name.reference.inherits
                         (qualified_name (name) @name.reference.inherits .) @reference.inherits])
; use SomeTrait; inside a class body
(declaration_list
  (use_declaration [(name) @name.reference.inherits
                    (qualified_name (name) @name.reference.inherits .) @reference.inherits]))
