; hookgraph query for Haskell. Capture convention: docs/languages.md
;
; A function is its type signature and its equations, which the grammar keeps as
; sibling nodes: languages.json sets join_clauses, so adjacent definitions of
; one name become one unit whose signature is the type signature.
;
; Type classes are interfaces (their signatures and default methods are
; methods). An instance is a container named by its type, like Rust's impl:
; `instance Arbitrary Bool where arbitrary = ...` gives Bool.arbitrary, and
; Bool inherits Arbitrary. A class's superclass context (class Eq a => Ord a)
; is inherited too.

; ---------------------------------------------------------------- definitions

(signature name: (variable) @name.definition.function) @definition.function
(signature name: (prefix_id [(operator) (constructor_operator)] @name.definition.function)) @definition.function
(function name: (variable) @name.definition.function match: (_) @body) @definition.function
(function (infix operator: (operator) @name.definition.function) match: (_) @body) @definition.function
(function (infix operator: (infix_id (variable) @name.definition.function)) match: (_) @body) @definition.function
(bind name: (variable) @name.definition.function match: (_) @body) @definition.function

(class name: (name) @name.definition.interface declarations: (_)? @body) @definition.interface

(instance patterns: (type_patterns) @name.container) @container

; data with two or more constructors is an enumeration of cases; with one, a record
(data_type
  name: (name) @name.definition.enum
  constructors: (data_constructors (data_constructor) (data_constructor)) @body) @definition.enum
(data_type name: (name) @name.definition.struct constructors: (_)? @body) @definition.struct
(data_type name: (name) @name.definition.struct (gadt_constructors) @body) @definition.struct
(newtype name: (name) @name.definition.struct) @definition.struct

; ---------------------------------------------------------------- documentation

(comment) @comment
(haddock) @comment
(pragma) @annotation

; ---------------------------------------------------------------- imports

(import module: (module) @name.reference.import)
(import
  module: (module) @module.reference.import
  names: (import_list (import_name [(variable) (name)] @name.reference.import)))

; ---------------------------------------------------------------- calls

; f x y is (f x) y: the innermost application names the function
(apply function: (variable) @name.reference.call) @reference.call
(apply function: (qualified id: (variable) @name.reference.call) @reference.call)
(infix operator: (infix_id (variable) @name.reference.call))
(infix operator: (infix_id (qualified id: (variable) @name.reference.call) @reference.call))

; ---------------------------------------------------------------- inheritance

(instance name: (name) @name.reference.inherits)
(instance name: (qualified id: (name) @name.reference.inherits) @reference.inherits)
(class context: (context context: (apply constructor: (name) @name.reference.inherits)))
(class context: (context context: (tuple (apply constructor: (name) @name.reference.inherits))))
