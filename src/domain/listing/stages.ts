// The journey stages, a read-only ordering (SERVICE.md section 2 and 3: not a state machine).
export const STAGES = [
  { id: 'idea', name: 'Idea', order: 1 },
  { id: 'validate', name: 'Validate', order: 2 },
  { id: 'build', name: 'Build', order: 3 },
  { id: 'ship', name: 'Ship', order: 4 },
  { id: 'launch', name: 'Launch', order: 5 },
  { id: 'grow', name: 'Grow', order: 6 },
  { id: 'operate', name: 'Operate', order: 7 },
] as const;
