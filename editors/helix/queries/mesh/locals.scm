; Scopes, definitions and references for mesh.
;
; A module is the scope of its requirements (read as `req.field`); a mesh is
; the scope of its nodes and of the instances its assignments make.

[
  (module_definition)
  (mesh_definition)
  (contract_definition)
  (for_expression)
] @local.scope

; A `for` loop's variable, read in its template.
(for_expression
  variable: (identifier) @local.definition)

; A requirement, read as the root of a reference.
(requirement
  name: (identifier) @local.definition)

; A contract's fields.
(field_declaration
  name: (identifier) @local.definition)

; A mesh's nodes and instances.
(node
  name: (identifier) @local.definition)

(assignment
  instance: (identifier) @local.definition)

(reference
  root: (identifier) @local.reference)

(publish_entry
  requirement: (identifier) @local.reference)

; A container or job, named by `after` in the module's others.
(container
  name: (identifier) @local.definition)

(job
  name: (identifier) @local.definition)

(after_entry
  name: (identifier) @local.reference)

(when_block
  requirement: (identifier) @local.reference)

(env_when
  requirement: (identifier) @local.reference)

(assignment
  node: (identifier) @local.reference)

(seat
  node: (identifier) @local.reference)

(pin
  node: (identifier) @local.reference)

(placement
  node: (identifier) @local.reference)
