; hookgraph query for Objective-C. Capture convention: docs/languages.md
; A method is Class.selector's first keyword: -[CDVDevice getDeviceInfo:] is
; CDVDevice.getDeviceInfo, -[Foo setObject:forKey:] is Foo.setObject (the
; signature shows the whole selector); calls are named the same way.
; @interface, a category and @implementation of a class are each a class unit.

; ---------------------------------------------------------------- definitions

(class_interface . (identifier) @name.definition.class) @definition.class
(class_implementation . (identifier) @name.definition.class) @definition.class
(protocol_declaration . (identifier) @name.definition.interface) @definition.interface

; - (void)getDeviceInfo:(id)command;  in an @interface or @protocol
(method_declaration (method_type) . (identifier) @name.definition.method) @definition.method
(method_declaration . (identifier) @name.definition.method) @definition.method

(method_definition
  (method_type) . (identifier) @name.definition.method
  (compound_statement) @body) @definition.method
(method_definition
  . (identifier) @name.definition.method
  (compound_statement) @body) @definition.method

; C in .m files: functions, structs, enums, typedefs, macros
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name.definition.function)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
  ]
  body: (compound_statement) @body) @definition.function

(struct_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list) @body) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list) @body) @definition.enum

(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name.definition.struct) @definition.struct

(preproc_function_def name: (identifier) @name.definition.function) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

; #import and #include
(preproc_include path: (string_literal (string_content) @name.reference.import))
(preproc_include path: (system_lib_string) @name.reference.import)
; @import Foundation;
(module_import path: (_) @name.reference.import)

; ---------------------------------------------------------------- calls

; [receiver selector:arg more:arg] -> selector
(message_expression receiver: (_) . method: (identifier) @name.reference.call)
(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name.reference.call)) @reference.call

; ---------------------------------------------------------------- inheritance

(class_interface superclass: (identifier) @name.reference.inherits)
; adopted protocols: @interface Foo : NSObject <Greeter, NSCopying>
(class_interface (parameterized_arguments (type_name (type_identifier) @name.reference.inherits)))
(class_interface (protocol_reference_list (identifier) @name.reference.inherits))
(protocol_declaration (protocol_reference_list (identifier) @name.reference.inherits))
