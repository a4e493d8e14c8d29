import sys
from pathlib import Path

# The tests' own helpers (reference_eval) import by name.
sys.path.insert(0, str(Path(__file__).parent))
