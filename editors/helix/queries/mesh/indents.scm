; Indentation for Helix (its own capture names; not a copy of the grammar's
; queries): the inside of every braced or bracketed block is indented.

[
  (contract_body)
  (set)
  (module_body)
  (narrowing_block)
  (container_body)
  (env_block)
  (answer_block)
  (mesh_body)
  (node_body)
  (assignment_body)
  (list)
] @indent

[
  "}"
  "]"
] @outdent
