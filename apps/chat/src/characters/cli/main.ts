import './register-aliases';
import 'reflect-metadata';
import { runCliMain } from '@svc/cli';
import { runCharactersCli } from './run-cli';

// Operator CLI for characters: `node dist/apps/chat/src/characters/cli/main.js <command>` (see USAGE).
runCliMain(runCharactersCli);
