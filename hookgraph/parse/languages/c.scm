; hookgraph query for C. Capture convention: docs/languages.md
; (cpp.scm repeats these patterns for C++'s grammar, which has the same node types.)

; ---------------------------------------------------------------- definitions

; int f(void) { }  /  char *f(void) { }  /  char **f(void) { }
; (a statement after a macro such as Py_END_ALLOW_THREADS can look like a definition of `if`: keywords are no names)
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name.definition.function . parameters: (parameter_list))
    (function_declarator (ERROR (identifier) @name.definition.function .) . parameters: (parameter_list))
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function)))
  ]
  body: (compound_statement) @body
  (#not-match? @name.definition.function "^(if|else|while|for|do|switch|case|return|sizeof|goto)$")) @definition.function

; a prototype with a comment right above it is the documented API (headers);
; undocumented forward declarations are left out
((comment) @_doc
  .
  ; `API_MACRO RetType name(args);`: the grammar takes RetType for the name and puts the name
  ; in an ERROR node before the parameters (xxhash.h's `XXH_PUBLIC_API XXH32_hash_t XXH32 (...)`)
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name.definition.function . parameters: (parameter_list))
      (function_declarator (ERROR (identifier) @name.definition.function .) . parameters: (parameter_list))
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function)))
    ]) @definition.function)

; inside an ERROR region the anchor above never matches (an X-macro `#define` with line continuations
; can open one that holds a whole header: brotli's decode.h); there, the prototypes of a region with comments
(ERROR
  (comment)
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name.definition.function . parameters: (parameter_list))
      (function_declarator (ERROR (identifier) @name.definition.function .) . parameters: (parameter_list))
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
    ]) @definition.function)

; function-like macros: #define MAX(a, b) ...
(preproc_function_def name: (identifier) @name.definition.function) @definition.function

(struct_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list) @body) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list) @body) @definition.enum

; typedef struct { ... } name;  (a named struct in a typedef is the struct above)
(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name.definition.struct) @definition.struct

(type_definition
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name.definition.struct) @definition.struct

(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name.definition.enum) @definition.enum

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

(preproc_include path: (string_literal (string_content) @name.reference.import))
(preproc_include path: (system_lib_string) @name.reference.import)

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name.reference.call)) @reference.call
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @name.reference.call))) @reference.call
