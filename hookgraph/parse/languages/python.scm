; hookgraph query for Python. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(class_definition
  name: (identifier) @name.definition.class
  body: (block) @body) @definition.class

(function_definition
  name: (identifier) @name.definition.function
  body: (block) @body) @definition.function

; module constants: DEFAULT_TIMEOUT = 10, RETRY_STATUSES: frozenset[int] = ... (an UPPER_CASE name
; assigned at module level; other module names are mostly imports' aliases and helpers' state)
(module
  (assignment left: (identifier) @name.definition.constant) @definition.constant
  (#match? @name.definition.constant "^_*[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- documentation

; module docstring: first statement, possibly after comments (shebang, coding, licence)
(module . (comment)* . (string) @doc)

(class_definition body: (block . (string) @doc))
(function_definition body: (block . (string) @doc))

(comment) @comment

; ---------------------------------------------------------------- imports

; import a.b, import a.b as c
(import_statement name: (dotted_name) @name.reference.import)
(import_statement name: (aliased_import name: (dotted_name) @name.reference.import))

; from a.b import c, d as e / from . import x / from a import *
(import_from_statement module_name: (_) @name.reference.import)
(import_from_statement
  module_name: (_) @module.reference.import
  name: (dotted_name) @name.reference.import)
(import_from_statement
  module_name: (_) @module.reference.import
  name: (aliased_import name: (dotted_name) @name.reference.import))

; ---------------------------------------------------------------- calls

(call function: (identifier) @name.reference.call) @reference.call
(call function: (attribute attribute: (identifier) @name.reference.call)) @reference.call

; ---------------------------------------------------------------- inheritance

; class A(Base, mod.Base, Generic[T], metaclass=M): keyword arguments are not bases
(class_definition
  superclasses: (argument_list (identifier) @name.reference.inherits))
(class_definition
  superclasses: (argument_list
    (attribute attribute: (identifier) @name.reference.inherits) @reference.inherits))
(class_definition
  superclasses: (argument_list
    (subscript value: [
      (identifier) @name.reference.inherits
      (attribute attribute: (identifier) @name.reference.inherits)
    ] @reference.inherits)))

; ---------------------------------------------------------------- declared types

; def connect(self, req: ClientRequest, timeout: float = 5), resolver: AbstractResolver = ... (a class-level
; annotation, the class's), self._resolver: AbstractResolver (an attribute of the object, recorded as written):
; the variable and its type, so that req.send() is read as ClientRequest.send
(typed_parameter . (identifier) @name.reference.types type: (type) @module.reference.types)
(typed_default_parameter name: (identifier) @name.reference.types type: (type) @module.reference.types)
(assignment left: (identifier) @name.reference.types type: (type) @module.reference.types)
(assignment left: (attribute object: (identifier) @_self) @name.reference.types type: (type) @module.reference.types
  (#eq? @_self "self"))
; writer = StreamWriter(...), self._parser = HttpResponseParser(...): a capitalised call builds that class
(assignment left: (identifier) @name.reference.builds !type
  right: (call function: [(identifier) (attribute attribute: (identifier))] @module.reference.builds)
  (#match? @module.reference.builds "(^|[.])[A-Z][A-Za-z0-9_]*$"))
(assignment left: (attribute object: (identifier) @_self) @name.reference.builds !type
  right: (call function: [(identifier) (attribute attribute: (identifier))] @module.reference.builds)
  (#eq? @_self "self")
  (#match? @module.reference.builds "(^|[.])[A-Z][A-Za-z0-9_]*$"))
