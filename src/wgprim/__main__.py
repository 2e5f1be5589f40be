import sys

from wgprim.cli import main

sys.exit(main())
