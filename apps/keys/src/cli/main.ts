import './register-aliases';
import 'reflect-metadata';
import { runCliMain } from '@svc/cli';
import { runCli } from './run-cli';

// Operator CLI: `npm run svc -- <command>` (see usage.ts).
runCliMain(runCli);
