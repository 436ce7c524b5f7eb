; Folding for mesh: every braced block, lists, and long strings.

[
  (contract_body)
  (module_body)
  (container_body)
  (env_block)
  (when_body)
  (env_when)
  (narrowing_block)
  (answer_block)
  (mesh_body)
  (node_body)
  (assignment_body)
  (list)
  (set)
  (string)
] @fold
