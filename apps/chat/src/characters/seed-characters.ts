import { Catalog } from '@svc/catalog';
import { CharactersRepository } from './characters.repository';
import { SVC_AUTHOR } from './character-owner';
import { DEFAULT_CHARACTERS } from './default-characters';

/** Seeds the shipped characters (never overwriting an existing slug) with the catalog's default text model. */
export async function seedDefaultCharacters(repository: CharactersRepository, catalog: Catalog): Promise<number> {
  const modelId = catalog.traits('text').default ?? catalog.ofType('text')[0]?.id;
  if (!modelId) return 0;
  let created = 0;
  for (const character of DEFAULT_CHARACTERS) if (await repository.insertIfMissing({ ...character, modelId }, SVC_AUTHOR)) created++;
  return created;
}
