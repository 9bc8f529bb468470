import { expect, test } from 'vitest';
import { isVisibleIn, sharedReach, teamOf } from '../../src/records/sharing.js';

test('the team of a namespace is its host and owner; folders and project names have none', () => {
  expect(teamOf('github.com/acme/shop')).toBe('github.com/acme');
  expect(teamOf('gitlab.example.com/group/sub/repo')).toBe('gitlab.example.com/group/sub');
  expect(teamOf('path:/home/dev/shop')).toBeNull();
  expect(teamOf('project:shop')).toBeNull();
  expect(sharedReach('github.com/acme/shop')).toEqual({ teamPrefix: 'github.com/acme/' });
  expect(sharedReach('path:/x')).toEqual({ teamPrefix: null });
});

test('isVisibleIn follows scope: project stays home, team reaches the owner, user reaches everywhere', () => {
  const at = (namespace_id: string, scope: 'project' | 'team' | 'user') => ({ namespace_id, scope });
  expect(isVisibleIn(at('github.com/acme/shop', 'project'), 'github.com/acme/billing')).toBe(false);
  expect(isVisibleIn(at('github.com/acme/shop', 'team'), 'github.com/acme/billing')).toBe(true);
  expect(isVisibleIn(at('github.com/acme/shop', 'team'), 'github.com/acme-corp/billing')).toBe(false);
  expect(isVisibleIn(at('path:/a', 'team'), 'path:/b')).toBe(false);
  expect(isVisibleIn(at('path:/a', 'user'), 'github.com/x/y')).toBe(true);
  expect(isVisibleIn(at('path:/a', 'project'), null)).toBe(true);
});
