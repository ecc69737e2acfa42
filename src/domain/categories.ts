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
