; hookgraph query for Perl. Capture convention: docs/languages.md
; `package Foo::Bar;` applies to the rest of its block or file: subs after it are Foo::Bar::name.

; ---------------------------------------------------------------- namespaces

; a package is also a unit (kind module): its subs, its @ISA and `use parent` belong to it
(package_statement
  name: (package) @name.namespace
  (block)? @body) @definition.module

; ---------------------------------------------------------------- definitions

(subroutine_declaration_statement
  name: (bareword) @name.definition.function
  body: (block) @body) @definition.function

; ---------------------------------------------------------------- documentation

(comment) @comment
(pod) @comment

; ---------------------------------------------------------------- imports

; use Foo::Bar; (not pragmas: strict, warnings, parent, base, constant, ...)
(use_statement
  module: (package) @name.reference.import
  (#match? @name.reference.import "^[A-Z]"))
; require Foo::Bar; / require "file.pl";
(require_expression (bareword) @name.reference.import)
(require_expression [(string_literal) (interpolated_string_literal)] @name.reference.import)

; ---------------------------------------------------------------- calls

; foo(1) / Foo::Bar::foo(1) / croak "x" (builtins that only move data left out)
(function_call_expression function: (function) @name.reference.call) @reference.call
(ambiguous_function_call_expression
  function: (function) @name.reference.call
  (#not-match? @name.reference.call "^(print|printf|say|push|pop|shift|unshift|splice|return|bless|defined|ref|scalar|delete|exists|keys|values|each|join|split|map|grep|sort|reverse|wantarray|die|warn|eval|local|my|our|open|close|binmode|sprintf|lc|uc|length|substr|index|sprintf|chomp|chop|exit|undef)$")) @reference.call
; $self->method / Foo::Bar->new
(method_call_expression method: (method) @name.reference.call) @reference.call

; ---------------------------------------------------------------- inheritance

; use parent -norequire, 'Base::Class'; / use base qw(Base::Class);
(use_statement
  module: (package) @_pragma
  [(string_literal (string_content) @name.reference.inherits)
   (quoted_word_list (string_content) @name.reference.inherits)
   (list_expression [(string_literal (string_content) @name.reference.inherits)
                     (quoted_word_list (string_content) @name.reference.inherits)])]
  (#any-of? @_pragma "parent" "base")
  (#match? @name.reference.inherits "^[A-Za-z_:]+$"))
; our @ISA = ('Exporter'); / @ISA = qw(Base); (a parenthesised list is no `right:` field)
(assignment_expression
  left: [(array (varname) @_isa) (variable_declaration variable: (array (varname) @_isa))]
  [(string_literal (string_content) @name.reference.inherits)
          (quoted_word_list (string_content) @name.reference.inherits)
          (list_expression (string_literal (string_content) @name.reference.inherits))]
  (#eq? @_isa "ISA")
  (#match? @name.reference.inherits "^[A-Za-z_:]+$"))
