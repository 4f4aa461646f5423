#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Render a LAVA device dictionary (qemu-tcg.jinja2) into the device YAML
lava-run --device takes, as lava-server would:

  render-device.py DEVICE-TYPES-DIR DICT.jinja2 > device.yaml

DEVICE-TYPES-DIR is lava-server's /usr/share/lava-server/device-types (from
the lava-server .deb: `apt-get download lava-server; dpkg-deb -x ...`)."""
import os
import sys

import jinja2
import yaml

types, dictionary = sys.argv[1], sys.argv[2]
env = jinja2.Environment(
    loader=jinja2.FileSystemLoader([os.path.dirname(os.path.abspath(dictionary)), types]),
    autoescape=False, trim_blocks=True)
out = env.get_template(os.path.basename(dictionary)).render()
yaml.safe_load(out)  # fails loudly on a bad render
sys.stdout.write(out)
