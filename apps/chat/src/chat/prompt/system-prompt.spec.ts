import { ChatMessage } from '@svc/contracts';
import { withSystemPrompt } from './system-prompt';

const user: ChatMessage = { role: 'user', content: 'Hi' };
const svc = { svcPrompt: 'SERVICE PROMPT', includeSvcPrompt: true };

describe('withSystemPrompt', () => {
  it('puts the service prompt first when the caller sends none', () => {
    expect(withSystemPrompt([user], svc)).toEqual([{ role: 'system', content: 'SERVICE PROMPT' }, user]);
  });

  it("appends the caller's system prompt after the service prompt, in one system message", () => {
    const out = withSystemPrompt([{ role: 'system', content: 'Be brief.' }, { role: 'developer', content: 'Use French.' }, user], svc);
    expect(out).toEqual([{ role: 'system', content: 'SERVICE PROMPT\n\nBe brief.\n\nUse French.' }, user]);
  });

  it('removes the service prompt when include_svc_system_prompt is false', () => {
    expect(withSystemPrompt([user], { ...svc, includeSvcPrompt: false })).toEqual([user]);
    const own: ChatMessage = { role: 'system', content: 'Be brief.' };
    expect(withSystemPrompt([own, user], { ...svc, includeSvcPrompt: false })).toEqual([own, user]);
  });

  it('has no service prompt when the deployment sets an empty one', () => {
    expect(withSystemPrompt([user], { svcPrompt: '', includeSvcPrompt: true })).toEqual([user]);
  });

  it("places a character's persona after the service prompt and before the caller's", () => {
    const out = withSystemPrompt([{ role: 'system', content: 'Be brief.' }, user], { ...svc, characterPrompt: 'You are Ada.' });
    expect(out[0]).toEqual({ role: 'system', content: 'SERVICE PROMPT\n\nYou are Ada.\n\nBe brief.' });
  });

  it('adds an instruction at the end of the system message', () => {
    expect(withSystemPrompt([user], { ...svc, instruction: '/no_think' })[0].content).toBe('SERVICE PROMPT\n\n/no_think');
    expect(withSystemPrompt([user], { ...svc, includeSvcPrompt: false, instruction: '/no_think' })[0]).toEqual({ role: 'system', content: '/no_think' });
  });

  it('keeps later system messages where they are', () => {
    const later: ChatMessage = { role: 'system', content: 'Now answer in English.' };
    const out = withSystemPrompt([user, later], svc);
    expect(out).toEqual([{ role: 'system', content: 'SERVICE PROMPT' }, user, later]);
  });
});
