// The measures of the chat evaluation, shared by evaluate.mjs and the e2e test: what counts as a
// relevant answer, the JSON schema and prompt of the JSON check, and the long conversation.

// The same stop list as conversations.py (content words: 4+ letters, not in this list).
const STOP = new Set(
  `a an the and or of to in on for with by from as at is are was be been being this that these those it its
into over under about than then also such can may will which who whom whose what when where why how not no nor but if
so all any some each other more most many much very only own same both few such your you our their his her they them
use used using uses provides provide package contains contain includes include files file data support supports based
program programs tool tools library libraries version`.split(/\s+/),
);

export function contentWords(text) {
  return new Set((text.toLowerCase().match(/[a-z][a-z0-9+]+/g) ?? []).filter((w) => w.length >= 4 && !STOP.has(w)));
}

/** An answer is relevant when it shares a content word with the real description (the name itself excluded). */
export function relevant(answer, question) {
  const truth = new Set(question.content_words);
  const name = question.name.toLowerCase();
  return [...contentWords(answer)].some((w) => w !== name && truth.has(w));
}

/**
 * Stricter: a shared content word that is not also a part of the package's name (`bluez` of
 * `bluez-source`), so that repeating the question's name does not count.
 */
export function relevantStrict(answer, question) {
  const nameParts = new Set(question.name.toLowerCase().match(/[a-z][a-z0-9+]+/g) ?? []);
  const truth = new Set(question.content_words);
  return [...contentWords(answer)].some((w) => !nameParts.has(w) && truth.has(w));
}

export const JSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, summary: { type: 'string' } },
  required: ['name', 'summary'],
  additionalProperties: false,
};

export function jsonMessages(name) {
  return [
    { role: 'system', content: 'Answer in JSON with the fields "name" and "summary". Keep the values short.' },
    { role: 'user', content: `Describe the package ${name}.` },
  ];
}

export function parsesWithStrings(text) {
  try {
    const v = JSON.parse(text);
    return typeof v?.name === 'string' && typeof v?.summary === 'string';
  } catch {
    return false;
  }
}

/**
 * A conversation of about `words * 4/3` tokens: a system message of notes (the held-out packages'
 * real descriptions), earlier turns, then a question about the first note.
 */
export function longConversation(questions, approxTokens) {
  const notes = [];
  let words = 0;
  for (const q of questions.slice(1)) {
    if (words > approxTokens * 0.6) break;
    const line = `- ${q.name} is ${q.short}. ${q.long.split('. ')[0]}.`;
    notes.push(line);
    words += line.split(/\s+/).length;
  }
  return [
    { role: 'system', content: `You are a helpful assistant. Notes:\n${notes.join('\n')}` },
    { role: 'user', content: 'Hello!' },
    { role: 'assistant', content: 'Hello! How can I help you?' },
    { role: 'user', content: `What is ${questions[1].name}?` },
  ];
}
