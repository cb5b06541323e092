; hookgraph query for JavaScript (and JSX), after ecmascript.scm, which holds the
; patterns JavaScript shares with TypeScript. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name.definition.class
  body: (class_body) @body) @definition.class

; class fields holding functions: handle = () => {...}
(class_body
  (field_definition
    property: (_) @name.definition.method
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
    ]) @definition.method)

; ---------------------------------------------------------------- inheritance

(class_heritage (identifier) @name.reference.inherits)
(class_heritage
  (member_expression property: (property_identifier) @name.reference.inherits) @reference.inherits)

; ---------------------------------------------------------------- exports

; export { axios as default }: this grammar reads `default` as a keyword (ecmascript.scm
; has the typescript grammar's reading, a name)
(export_clause (export_specifier name: (_) @name.export alias: "default"))
