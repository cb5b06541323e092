; hookgraph query for Clojure (.clj, .cljs, .cljc, .edn). Capture convention:
; docs/languages.md
;
; Everything is a list, so definitions are lists whose head is a def form:
; defn / defn- / defmacro / defmulti / defmethod and (def name (fn ...)) are
; functions, defprotocol / definterface are interfaces (their method
; signatures are methods), defrecord / deftype are classes whose method bodies
; are methods and whose listed protocols and interfaces are inherited;
; (extend-type T P (m [x] ...)) adds methods T.m and T inherits P. Any other
; (defsomething Name ...) macro (deftest, defcache, ...) defines a function
; Name. A docstring after the name is the doc; the ns docstring documents the
; file. (:require ...) / (:use ...) / (:import ...) in ns are imports; a list's
; head symbol is a call unless it is a special form, a core macro, Java
; interop (.method) or a dotted name (a package in :import).

; ---------------------------------------------------------------- definitions

(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  (#match? @_head "^(defn-?|defmacro|defmulti|defmethod)$")) @definition.function

; the signature runs to the body: "(defn greet [name]"; a docstring or a
; multi-arity body ends it at the name: "(defn through"
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  . [(str_lit) (list_lit)] @body
  (#match? @_head "^(defn-?|defmacro)$")) @definition.function
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  . (vec_lit)
  . (_) @body
  (#match? @_head "^(defn-?|defmacro)$")) @definition.function

(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.interface)
  . (_)? @body
  (#match? @_head "^(defprotocol|definterface)$")) @definition.interface

(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.class)
  . (vec_lit)
  . (_)? @body
  (#match? @_head "^(defrecord|deftype)$")) @definition.class

; (def f (fn [x] ...)) / (def f #(...))
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  . [(anon_fn_lit) (list_lit . (sym_lit name: (sym_name) @_fn) (#match? @_fn "^fn\\*?$"))]
  (#eq? @_head "def")) @definition.function

; any other def-like macro: (deftest parses-dates ...), (defcache LRUCache [...] ...)
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  (#match? @_head "^def.")
  (#not-match? @_head "^(defn-?|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defonce|def)$")) @definition.function
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  . [(str_lit) (list_lit)] @body
  (#match? @_head "^def.")
  (#not-match? @_head "^(defn-?|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defonce|def)$")) @definition.function
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.definition.function)
  . (vec_lit)
  . (_) @body
  (#match? @_head "^def.")
  (#not-match? @_head "^(defn-?|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defonce|def)$")) @definition.function

; protocol method signatures and record/type/extension method bodies: (name [args] ...)
(list_lit
  . (sym_lit name: (sym_name) @_head)
  (list_lit . (sym_lit name: (sym_name) @name.definition.function) . (vec_lit) . (_)? @body) @definition.function
  (#match? @_head "^(defprotocol|definterface|defrecord|deftype|extend-type)$"))

(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit name: (sym_name) @name.container)
  (#eq? @_head "extend-type")) @container

; ---------------------------------------------------------------- documentation

(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit)
  . (str_lit) @doc
  (#match? @_head "^(ns|defn-?|defmacro|defmulti|defprotocol|definterface)$"))
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit)
  . (str_lit) @doc
  (#match? @_head "^def.")
  (#not-match? @_head "^(defn-?|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defonce|def)$"))
(list_lit
  . (sym_lit name: (sym_name) @_head)
  (list_lit . (sym_lit) (vec_lit) . (str_lit) @doc)
  (#match? @_head "^(defprotocol|definterface)$"))

(comment) @comment
(dis_expr) @annotation

; ---------------------------------------------------------------- imports

; (:require [clojure.string :as str] clojure.set) / (:use ...)
(list_lit
  . (kwd_lit name: (kwd_name) @_kw)
  [(sym_lit) @name.reference.import (vec_lit . (sym_lit) @name.reference.import)]
  (#match? @_kw "^(require|use)$"))
; (:import (java.util Date UUID)) / [java.util Date]
(list_lit
  . (kwd_lit name: (kwd_name) @_kw)
  [(list_lit . (sym_lit) @module.reference.import (sym_lit) @name.reference.import)
   (vec_lit . (sym_lit) @module.reference.import (sym_lit) @name.reference.import)]
  (#eq? @_kw "import"))
(list_lit
  . (kwd_lit name: (kwd_name) @_kw)
  (sym_lit) @name.reference.import
  (#eq? @_kw "import"))

; ---------------------------------------------------------------- calls

(list_lit
  . (sym_lit name: (sym_name) @name.reference.call) @reference.call
  (#not-match? @name.reference.call "^(def.*|ns|fn\\*?|let\\*?|letfn|loop\\*?|recur|if|if-not|if-let|if-some|when|when-not|when-let|when-some|when-first|cond|condp|cond->>?|case|do|quote|var|throw|try|catch|finally|and|or|->>?|as->|some->>?|doto|\\.\\.|new|set!|binding|for|doseq|dotimes|while|comment|declare|extend-type|extend-protocol|reify|proxy|locking|delay|lazy-seq|with-open|import|require|\\..*|.+\\..+)$"))

; ---------------------------------------------------------------- inheritance

; (defrecord Circle [r] Shape (area [_] ...) Object (toString [_] ...))
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit)
  . (vec_lit)
  (sym_lit name: (sym_name) @name.reference.inherits) @reference.inherits
  (#match? @_head "^(defrecord|deftype)$"))
(list_lit
  . (sym_lit name: (sym_name) @_head)
  . (sym_lit)
  (sym_lit name: (sym_name) @name.reference.inherits) @reference.inherits
  (#eq? @_head "extend-type"))
