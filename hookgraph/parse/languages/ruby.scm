; hookgraph query for Ruby. Capture convention: docs/languages.md
; Qualified names nest with "::" (Retriable::Config::build); `def self.x` is a method of its class.

; ---------------------------------------------------------------- definitions

(class
  name: [(constant) @name.definition.class
         (scope_resolution scope: (_) @name.scope name: (constant) @name.definition.class)]
  body: (_)? @body) @definition.class

(module
  name: [(constant) @name.definition.module
         (scope_resolution scope: (_) @name.scope name: (constant) @name.definition.module)]
  body: (_)? @body) @definition.module

; Struct.new / Class.new assigned to a constant: Point = Struct.new(:x, :y) do ... end
(assignment
  left: (constant) @name.definition.class
  right: (call
    receiver: (constant) @_factory
    method: (identifier) @_new
    block: (_)? @body
    (#any-of? @_factory "Struct" "Class" "Data")
    (#any-of? @_new "new" "define"))) @definition.class

(method
  name: (_) @name.definition.function
  body: (_)? @body) @definition.function

; def self.build / def Config.build: a method of the class it stands in (or of Config)
(singleton_method
  object: (self)
  name: (_) @name.definition.function
  body: (_)? @body) @definition.function
(singleton_method
  object: [(constant) (scope_resolution)] @name.scope
  name: (_) @name.definition.function
  body: (_)? @body) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment

; ---------------------------------------------------------------- imports

; require "json" / require_relative "retriable/config" / load "x.rb" / autoload :X, "x"
(call
  method: (identifier) @_require
  arguments: (argument_list . (string (string_content) @name.reference.import))
  (#any-of? @_require "require" "require_relative" "load" "require_dependency"))
(call
  method: (identifier) @_autoload
  arguments: (argument_list (simple_symbol) (string (string_content) @name.reference.import))
  (#eq? @_autoload "autoload"))

; ---------------------------------------------------------------- calls

; foo(1) / foo 1 / obj.foo / Foo::Bar.baz / foo&.bar; not the require/include/attr_* declarations
; (#not-match?, not #not-any-of?: py-tree-sitter 0.26 ignores the latter)
(call
  method: (_) @name.reference.call
  (#not-match? @name.reference.call "^(require|require_relative|load|require_dependency|autoload|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function|private_constant)$")) @reference.call

; a bare name standing as a statement calls a method without arguments (`make_rewindable unless @io`,
; `check_part_limits`); a local variable standing alone does nothing but return itself, which
; resolves to nothing unless a method of that name exists
(body_statement (identifier) @name.reference.call @reference.call)
(then (identifier) @name.reference.call @reference.call)
(else (identifier) @name.reference.call @reference.call)
(unless_modifier body: (identifier) @name.reference.call @reference.call)
(if_modifier body: (identifier) @name.reference.call @reference.call)

; ---------------------------------------------------------------- inheritance

; class Config < Base / < Base::Thing
(class superclass: (superclass (constant) @name.reference.inherits))
(class superclass: (superclass
  (scope_resolution name: (constant) @name.reference.inherits) @reference.inherits))

; include / extend / prepend a module: its methods become ours
(call
  method: (identifier) @_mixin
  arguments: (argument_list [
    (constant) @name.reference.inherits
    (scope_resolution name: (constant) @name.reference.inherits) @reference.inherits])
  (#any-of? @_mixin "include" "extend" "prepend"))
