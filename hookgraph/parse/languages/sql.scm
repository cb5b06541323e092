; hookgraph query for SQL (PostgreSQL-flavoured: the tree-sitter-sql grammar).
; Capture convention: docs/languages.md
;
; Units: CREATE TABLE (kind table), CREATE [MATERIALIZED] VIEW (view),
; CREATE FUNCTION and CREATE TRIGGER (function), CREATE TYPE ... AS ENUM (enum)
; and composite types (struct). Names are the object's own name; a schema
; prefix shows in edges' target_full (public.jobs).
;
; Edges: a function called in a body (or executed by a trigger) -> calls; a
; table or view read or written (FROM, JOIN, INSERT INTO, UPDATE, DELETE FROM,
; REFERENCES, a trigger's ON, ALTER TABLE) -> imports: the view or function
; depends on it the way a module depends on what it imports, so `graph`
; shows it and `callers` stays about calls.
;
; The grammar has no CREATE PROCEDURE (it parses as an error and drops the
; name), so procedures are not units; their statements still give edges.

; ---------------------------------------------------------------- definitions

; (the object's name is the reference right after its keyword or IF NOT EXISTS;
; later ones are a return type, a trigger's table and function)
(create_table
  [(keyword_table) (keyword_exists)] . (object_reference name: (identifier) @name.definition.table)
  (column_definitions)? @body) @definition.table

(create_view
  [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name.definition.view)
  (keyword_as) @body) @definition.view

(create_materialized_view
  [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name.definition.view)
  (keyword_as) @body) @definition.view

(create_function
  (keyword_function) . (object_reference name: (identifier) @name.definition.function)
  (function_body)? @body) @definition.function

(create_trigger
  [(keyword_trigger) (keyword_exists)] . (object_reference name: (identifier) @name.definition.function)) @definition.function

(create_type
  (keyword_type) . (object_reference name: (identifier) @name.definition.enum)
  (keyword_enum)
  (enum_elements) @body) @definition.enum

(create_type
  (keyword_type) . (object_reference name: (identifier) @name.definition.struct)
  (column_definitions) @body) @definition.struct

; ---------------------------------------------------------------- documentation

(comment) @comment
(marginalia) @comment

; ---------------------------------------------------------------- imports (tables)

(relation (object_reference . (identifier) @name.reference.import .))
(relation (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
(insert (object_reference . (identifier) @name.reference.import .))
(insert (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
(from (object_reference . (identifier) @name.reference.import .))
(from (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
(alter_table (object_reference . (identifier) @name.reference.import .))
(alter_table (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
(_ (keyword_references) . (object_reference . (identifier) @name.reference.import .))
(_ (keyword_references) . (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
; a column's inline REFERENCES t ON DELETE CASCADE is an error node for the grammar
(ERROR (keyword_references) . (object_reference . (identifier) @name.reference.import .))
(ERROR (keyword_references) . (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))
(create_trigger (keyword_on) . (object_reference . (identifier) @name.reference.import .))
(create_trigger
  (keyword_on) . (object_reference schema: (identifier) @module.reference.import name: (identifier) @name.reference.import))

; ---------------------------------------------------------------- calls

(invocation (object_reference name: (identifier) @name.reference.call) @reference.call)
; CREATE TRIGGER ... EXECUTE FUNCTION notify() / EXECUTE PROCEDURE notify()
(create_trigger
  (keyword_execute)
  .
  [(keyword_function) (keyword_procedure)]
  .
  (object_reference name: (identifier) @name.reference.call) @reference.call)
