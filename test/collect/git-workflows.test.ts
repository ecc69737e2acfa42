// Guarantees the git source lists GitHub agentic workflows as the snapshot did: Markdown files directly in
// workflows/ and .github/workflows/ with an `on:` key, never shared/ fragments, compiled .lock.yml, a README or a
// redirect stub; named by front matter, heading or stem; described by front matter or the first paragraph;
// tagged with their triggers; a stem met in both folders listed once.
import { afterEach, describe, expect, it } from 'vitest';
import { byPath, collect, FixtureRepo, warningsOf } from './support/git-fixture.ts';

const fixtures: FixtureRepo[] = [];
afterEach(() => {
  for (const fixture of fixtures.splice(0)) fixture.cleanup();
});

describe('gh-aw workflows', () => {
  it('lists runnable workflows only, named, described and tagged as the snapshot did', async () => {
    const fixture = new FixtureRepo();
    fixtures.push(fixture);
    fixture
      .write({
        'workflows/ci-doctor.md':
          '---\non:\n  workflow_run:\n    workflows: [CI]\n  workflow_dispatch:\npermissions: read-all\n---\n# CI Failure Doctor\n\nYou are the CI doctor.\nInvestigate failures.\n\nMore.\n',
        'workflows/triage.md': '---\nname: Issue Triage\ndescription: Triages new issues\non: issues\n---\n\nBody\n',
        'workflows/listed.md': '---\non: [push, pull_request]\n---\n```yaml\ncode\n```\n\n| a | b |\n\n<div>x</div>\n\nThe first prose paragraph.\n',
        'workflows/shared/fragment.md': '---\non: push\n---\nA shared import.\n',
        'workflows/ci-doctor.lock.yml': 'name: compiled\n',
        'workflows/README.md': '---\non: push\n---\nReadme\n',
        'workflows/moved.md': '---\nredirect: "acme/tools/workflows/other.md@main"\n---\n',
        'workflows/plain.yml': 'on: push\n',
        '.github/workflows/ci-doctor.md': '---\non: push\n---\nDuplicate stem.\n',
        '.github/workflows/maintainer.md': '---\non:\n  schedule: daily\n---\nMaintains.\n',
        '.github/workflows/ci.yml': 'on: push\n',
      })
      .commit();
    const result = await collect(fixture);
    const workflows = byPath(result, 'workflow');
    expect([...workflows.keys()]).toEqual(['workflows/ci-doctor.md', 'workflows/listed.md', 'workflows/triage.md', '.github/workflows/maintainer.md']);
    expect(workflows.get('workflows/ci-doctor.md')).toMatchObject({
      name: 'CI Failure Doctor',
      description: 'You are the CI doctor.\nInvestigate failures.',
      tags: ['github-agentic-workflow', 'trigger:workflow_dispatch', 'trigger:workflow_run'],
      updatedAt: '2026-01-01T12:00:00Z',
    });
    expect(workflows.get('workflows/triage.md')).toMatchObject({
      name: 'Issue Triage',
      description: 'Triages new issues',
      tags: ['github-agentic-workflow', 'trigger:issues'],
    });
    expect(workflows.get('workflows/listed.md')).toMatchObject({
      name: 'listed',
      description: 'The first prose paragraph.',
      tags: ['github-agentic-workflow', 'trigger:push', 'trigger:pull_request'],
    });
    expect(workflows.get('.github/workflows/maintainer.md')).toMatchObject({
      name: 'maintainer',
      description: 'Maintains.',
      tags: ['github-agentic-workflow', 'trigger:schedule'],
    });
    expect(warningsOf(result)).toEqual([
      'workflows/moved.md: skipped: no `on:` in the front matter (not a runnable workflow)',
      '.github/workflows/ci-doctor.md: a workflow named ci-doctor is listed from workflows/ci-doctor.md; this one is not',
    ]);
  });
});
