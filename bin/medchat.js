#!/usr/bin/env node
import '../dist/medchat.js';
