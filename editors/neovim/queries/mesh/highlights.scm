; Syntax highlighting for mesh.
;
; Capture names are the common tree-sitter ones, chosen so that Neovim (0.9+),
; Helix and tree-sitter-highlight all fall back to something sensible: a name
; such as @constant.numeric reads as @constant where the longer one is unknown.
;
; No node is captured by two patterns: Neovim lets the last matching pattern
; win and Helix the first, so overlapping patterns would colour differently.

; Comments ------------------------------------------------------------------

(comment) @comment

(doc_comment) @comment.documentation

; Keywords ------------------------------------------------------------------

[
  "contract"
  "for"
  "given"
  "seat"
  "delivers"
  "module"
  "slug"
  "requires"
  "operator"
  "container"
  "job"
  "health"
  "every"
  "start"
  "retries"
  "after"
  "sep"
  "image"
  "command"
  "user"
  "env"
  "exposed"
  "mount"
  "read_only"
  "file"
  "mode"
  "owner"
  "publish"
  "image_paths"
  "provides"
  "mesh"
  "node"
  "assign"
  "to"
  "as"
  "from"
  "at"
  "on"
  "when"
  "absent"
  "keep_network"
  "consumers"
] @keyword

; `for c in …`: the loop variable, and its reads in the template.
(for_expression
  variable: (identifier) @variable)

(consumers
  contract: (identifier) @type)

(genesis) @keyword

; `?` after an optional requirement's name.
"?" @punctuation.special

; `secret` is a type modifier and a container entry.
"secret" @keyword

; Refinements read as operators on a type: `in 1..64`, `len 16..`.
[
  "in"
  "len"
  "matches"
] @keyword.operator

; The provider kind of a contract (`for module`) or requirement
; (`module postgres`): a closed set the compiler checks.
(contract_definition
  kind: (identifier) @keyword)

(contract_requirement
  kind: (identifier) @keyword)

; Types ---------------------------------------------------------------------

"list" @type.builtin

((type_identifier) @type.builtin
  (#any-of? @type.builtin
    "string" "int" "bool" "port" "uid" "mode" "hostname" "url" "email" "path"
    "host_path" "image"))

((type_identifier) @type
  (#not-any-of? @type
    "string" "int" "bool" "port" "uid" "mode" "hostname" "url" "email" "path"
    "host_path" "image"))

; Contracts are the types of requirements.
(contract_definition
  name: (identifier) @type)

(contract_requirement
  contract: (identifier) @type)

(provides
  contract: (identifier) @type)

(seat_declaration
  contract: (identifier) @type)

; Definitions ---------------------------------------------------------------

(module_definition
  name: (identifier) @constructor)

(assignment
  module: (identifier) @constructor)

(mesh_definition
  name: (identifier) @type)

(container
  name: (identifier) @label)

(job
  name: (identifier) @label)

(after_entry
  name: (identifier) @label)

(node
  name: (identifier) @label)

(assignment
  node: (identifier) @label)

(seat
  node: (identifier) @label)

(pin
  node: (identifier) @label)

(placement
  node: (identifier) @label)

(seat_declaration
  name: (identifier) @constant)

(seat
  name: (identifier) @constant)

(assignment
  instance: (identifier) @variable)

(seat
  instance: (identifier) @variable)

(pin
  instance: (identifier) @variable)

(requirement
  name: (identifier) @variable)

(publish_entry
  requirement: (identifier) @variable)

(pin
  requirement: (identifier) @variable)

(placement
  requirement: (identifier) @variable)

(absence
  requirement: (identifier) @variable)

(when_block
  requirement: (identifier) @variable)

(env_when
  requirement: (identifier) @variable)

(given_value
  requirement: (identifier) @variable)

(operator_value
  name: (identifier) @variable)

; Fields of a contract, wherever they are named.
(field_declaration
  name: (identifier) @variable.other.member)

(narrowing
  name: (identifier) @variable.other.member)

(answer
  name: (identifier) @variable.other.member)

(given_value
  field: (identifier) @variable.other.member)

(node_property
  name: (identifier) @variable.other.member)

; Environment variables.
(env_entry
  key: (identifier) @constant)

; References: `req.field`; `consumer` and `given` are the asking side, inside
; `provides`.
(reference
  field: (identifier) @variable.other.member)

((reference
  root: (identifier) @variable.builtin)
  (#any-of? @variable.builtin "consumer" "given"))

((reference
  root: (identifier) @variable)
  (#not-any-of? @variable "consumer" "given"))

; Literals ------------------------------------------------------------------

(string) @string

(escape_sequence) @string.escape

(interpolation
  [
    "${"
    "}"
  ] @punctuation.special)

(interpolation
  legacy_kind: (legacy_kind) @keyword)

(integer) @constant.numeric

(boolean) @constant.builtin.boolean

; Punctuation ---------------------------------------------------------------

[
  "="
  "->"
  ".."
] @operator

[
  ":"
  "."
  ","
] @punctuation.delimiter

; Braces of blocks and sets; those of an interpolation are captured above.
(contract_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(set
  [
    "{"
    "}"
  ] @punctuation.bracket)

(module_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(narrowing_block
  [
    "{"
    "}"
  ] @punctuation.bracket)

(container_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(env_block
  [
    "{"
    "}"
  ] @punctuation.bracket)

(when_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(env_when
  [
    "{"
    "}"
  ] @punctuation.bracket)

(answer_block
  [
    "{"
    "}"
  ] @punctuation.bracket)

(mesh_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(node_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

(assignment_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

[
  "["
  "]"
  "<"
  ">"
] @punctuation.bracket

; A call of one of the language's functions: url, json, yaml, lower, upper, replace.
(call function: (function_name) @function.builtin)
