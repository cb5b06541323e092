; hookgraph query for Rust. Capture convention: docs/languages.md

; ---------------------------------------------------------------- definitions

(function_item
  name: (identifier) @name.definition.function
  body: (block) @body) @definition.function

; trait method declarations without a body
(function_signature_item
  name: (identifier) @name.definition.function) @definition.function

(struct_item
  name: (type_identifier) @name.definition.struct
  body: (_)? @body) @definition.struct

(union_item
  name: (type_identifier) @name.definition.struct
  body: (_)? @body) @definition.struct

(enum_item
  name: (type_identifier) @name.definition.enum
  body: (enum_variant_list) @body) @definition.enum

(trait_item
  name: (type_identifier) @name.definition.trait
  body: (declaration_list) @body) @definition.trait

; inline modules: mod tests { ... }
(mod_item
  name: (identifier) @name.definition.module
  body: (declaration_list) @body) @definition.module

; macro_rules! select { ... }: called like a function (select!, join!, pin!), documented like one
(macro_definition name: (identifier) @name.definition.function) @definition.function
; macro_rules! doc { ($select:item) => { /// Waits on ... $select } }: the docs of the item a macro
; expands to, written at the head of its first rule's expansion, are the macro's (tokio's select!, join!)
(macro_definition (macro_rule right: (token_tree . (line_comment (outer_doc_comment_marker))+ @doc)))

; module-level type aliases: pub type Result<T> = ... (an impl's `type Output = T;` is no unit of its own)
(source_file (type_item name: (type_identifier) @name.definition.type) @definition.type)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name.definition.type) @definition.type))

; named values: const MAX_HEADER_SIZE: usize = ...; static NEXT_ID: AtomicUsize = ...
; (inside an impl they are the type's: Header::SIZE; inside a fn, part of it)
(const_item name: (identifier) @name.definition.constant) @definition.constant
(static_item name: (identifier) @name.definition.variable) @definition.variable

; impl Foo / impl<T> Foo<T> / impl Trait for path::Foo / for &mut Foo<R> / for str:
; prefixes method names, not a unit
(impl_item
  type: [
    (type_identifier) @name.container
    (primitive_type) @name.container
    (generic_type type: (type_identifier) @name.container)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name.container))
    (scoped_type_identifier name: (type_identifier) @name.container)
    (reference_type type: [
      (type_identifier) @name.container
      (generic_type type: (type_identifier) @name.container)
      (generic_type type: (scoped_type_identifier name: (type_identifier) @name.container))
      (scoped_type_identifier name: (type_identifier) @name.container)
    ])
  ]) @container

; ---------------------------------------------------------------- documentation

(line_comment) @comment
(block_comment) @comment
(attribute_item) @annotation

; ---------------------------------------------------------------- imports

(use_declaration argument: (identifier) @name.reference.import)
(use_declaration argument: (scoped_identifier) @name.reference.import)
(use_declaration argument: (use_as_clause path: (_) @name.reference.import))
(use_declaration argument: (use_wildcard (_) @name.reference.import))
(use_declaration argument: (scoped_use_list path: (_) @name.reference.import))
(use_declaration
  argument: (scoped_use_list
    path: (_) @module.reference.import
    list: (use_list [(identifier) (scoped_identifier)] @name.reference.import)))
(use_declaration
  argument: (scoped_use_list
    path: (_) @module.reference.import
    list: (use_list (use_as_clause path: (_) @name.reference.import))))
(extern_crate_declaration name: (identifier) @name.reference.import)

; ---------------------------------------------------------------- calls

(call_expression function: (identifier) @name.reference.call) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name.reference.call)) @reference.call
(call_expression
  function: (scoped_identifier name: (identifier) @name.reference.call)) @reference.call
(call_expression
  function: (generic_function function: [
    (identifier) @name.reference.call
    (scoped_identifier name: (identifier) @name.reference.call)
    (field_expression field: (field_identifier) @name.reference.call)
  ])) @reference.call

; ---------------------------------------------------------------- inheritance

; impl Trait for Foo: the trait is attributed to the enclosing container (Foo)
(impl_item trait: (type_identifier) @name.reference.inherits)
(impl_item
  trait: (scoped_type_identifier name: (type_identifier) @name.reference.inherits) @reference.inherits)
(impl_item
  trait: (generic_type type: (type_identifier) @name.reference.inherits) @reference.inherits)
(impl_item
  trait: (generic_type
    type: (scoped_type_identifier name: (type_identifier) @name.reference.inherits)) @reference.inherits)
; supertraits: trait Shape: Debug + fmt::Display
(trait_item bounds: (trait_bounds (type_identifier) @name.reference.inherits))
(trait_item
  bounds: (trait_bounds
    (scoped_type_identifier name: (type_identifier) @name.reference.inherits) @reference.inherits))

; ---------------------------------------------------------------- declared types

; let s: Scheduler = ..., h: &Handle (a parameter), park: IoStack (a struct field, the struct's):
; the variable and its type, so that self.park.park() is read as IoStack::park
(let_declaration pattern: (identifier) @name.reference.types type: (_) @module.reference.types)
(parameter pattern: (identifier) @name.reference.types type: (_) @module.reference.types)
(field_declaration name: (field_identifier) @name.reference.types type: (_) @module.reference.types)
; let t = Timer::new(...): Type::new builds that type
(let_declaration pattern: (identifier) @name.reference.builds !type
  value: (call_expression function: (scoped_identifier path: (identifier) @module.reference.builds
    name: (identifier) @_new))
  (#eq? @_new "new"))
