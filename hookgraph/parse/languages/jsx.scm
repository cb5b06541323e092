; hookgraph query additions for JSX (javascript and tsx grammars).
; Capture convention: docs/languages.md

; rendering a component is calling it: <TodoItem ... /> and <ui.Button>...</ui.Button>
; (lower-case names are HTML elements, not calls)
(jsx_self_closing_element
  name: (identifier) @name.reference.call @reference.call
  (#match? @name.reference.call "^[A-Z]"))
(jsx_opening_element
  name: (identifier) @name.reference.call @reference.call
  (#match? @name.reference.call "^[A-Z]"))
(jsx_self_closing_element
  name: (member_expression property: (property_identifier) @name.reference.call) @reference.call)
(jsx_opening_element
  name: (member_expression property: (property_identifier) @name.reference.call) @reference.call)
