; hookgraph query for Zig. Capture convention: docs/languages.md
;
; Zig has no inheritance; a type is a constant bound to a container:
; const BufMap = struct { ... }, and its functions are its methods.

; ---------------------------------------------------------------- definitions
; (the body of a container is its first member, so the signature reads
; "const BufMap = struct")

(Decl
  (FnProto function: (IDENTIFIER) @name.definition.function)
  (Block)? @body) @definition.function

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name.definition.struct
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType ["struct" "opaque"]) . (_)? @body))))) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name.definition.struct
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "union") . (_)? @body))))) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name.definition.enum
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType . "enum") . (_)? @body))))) @definition.enum

; ---------------------------------------------------------------- documentation

(doc_comment) @comment
(line_comment) @comment
; //! comments document the file (a file is a struct in Zig)
(container_doc_comment) @comment

; ---------------------------------------------------------------- imports

; const std = @import("std.zig")
(SuffixExpr
  (BUILTINIDENTIFIER) @_builtin
  (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @name.reference.import)))
  (#eq? @_builtin "@import"))

; ---------------------------------------------------------------- calls

; f(x), a.b.c(x); builtins (@intCast) are the compiler's
(SuffixExpr
  variable_type_function: (IDENTIFIER) @name.reference.call
  .
  (FnCallArguments)) @reference.call
(SuffixExpr
  (FieldOrFnCall function_call: (IDENTIFIER) @name.reference.call)) @reference.call
