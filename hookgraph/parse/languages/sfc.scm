; hookgraph query for single-file components (Vue, Svelte): where the code is.
; Each <script> element's start tag names its language (lang="ts"; see
; "blocks" in languages.json) and its raw text is the code, parsed with that
; language's own query. Capture convention: docs/languages.md

(script_element (start_tag) @block.tag (raw_text) @block.code)
