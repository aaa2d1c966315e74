# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration for "make docs-check": the containers admin guide
# alone, with the kernel's own kernel-doc extension, so that its
# kernel-doc directives are built as "make htmldocs" builds them.
import os
import sys

srctree = os.environ['KSRC']
sys.path.insert(0, os.path.join(srctree, 'Documentation/sphinx'))
extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(srctree, 'scripts/kernel-doc')
kerneldoc_srctree = srctree
project = 'Process containers'
master_doc = 'containers'
primary_domain = 'c'
highlight_language = 'none'
