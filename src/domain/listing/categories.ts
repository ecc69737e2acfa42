// The catalog's category vocabulary (one list for every type), with the labels people read.
// A slug outside this list is still accepted from an export (labelled from its slug), so a new upstream
// category never breaks ingest.
export const CATEGORY_LABELS: Readonly<Record<string, string>> = {
  'developer-tools': 'Developer tools',
  'frontend-design': 'Frontend & design',
  'backend-api': 'Backend & APIs',
  mobile: 'Mobile',
  databases: 'Databases',
  'cloud-infrastructure': 'Cloud & infrastructure',
  devops: 'DevOps & CI/CD',
  'testing-qa': 'Testing & QA',
  security: 'Security',
  'monitoring-observability': 'Monitoring & observability',
  'version-control': 'Version control',
  'browser-automation': 'Browser automation & scraping',
  'search-web': 'Search & web data',
  'data-analytics': 'Data & analytics',
  'ai-ml': 'AI & ML',
  'agent-orchestration': 'Agents & orchestration',
  'knowledge-memory': 'Knowledge & memory',
  documents: 'Documents & office files',
  'file-systems': 'File systems',
  communication: 'Communication',
  productivity: 'Productivity',
  'project-management': 'Project management',
  'marketing-seo': 'Marketing & SEO',
  'sales-crm': 'Sales, CRM & commerce',
  'finance-crypto': 'Finance & crypto',
  media: 'Media, audio & video',
  'writing-content': 'Writing & content',
  'science-research': 'Science & research',
  'health-life-sciences': 'Health & life sciences',
  'location-travel': 'Location & travel',
  gaming: 'Gaming',
  education: 'Education',
  'os-automation': 'OS & command line',
  'iot-hardware': 'IoT & hardware',
  'social-media': 'Social media',
  other: 'Other',
};

export const CATEGORY_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function categoryLabel(slug: string): string {
  const known = CATEGORY_LABELS[slug];
  if (known) return known;
  const words = slug.split('-').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Edits (insert, delete, substitute) between two words: how close a mistyped category is to a real one. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The category a mistyped or loosely written one most likely means: one that contains it or that it contains
 * ("database" → "databases"), else the fewest edits within a third of its length; undefined when none is close.
 */
export function closestCategory(wanted: string, names: readonly string[]): string | undefined {
  const key = wanted
    .toLowerCase()
    .trim()
    .replace(/[\s_]+/g, '-');
  const distinct = [...new Set(names)].sort();
  const exact = distinct.find((name) => name === key);
  if (exact) return exact;
  const containing = distinct
    .filter((name) => name.includes(key) || key.includes(name))
    .sort((a, b) => Math.abs(a.length - key.length) - Math.abs(b.length - key.length) || (a < b ? -1 : 1));
  if (containing.length > 0 && key.length >= 3) return containing[0];
  let best: { name: string; distance: number } | undefined;
  for (const name of distinct) {
    const distance = editDistance(key, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(key.length / 3)) ? best.name : undefined;
}
