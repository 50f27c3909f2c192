#!/usr/bin/env bash
# Gathers the real-world type corpus that Tests/Corpus/expected.tsv lists, and prints the folder
# that holds it (one file per row, named as in the table's first column).
#
#   scripts/corpus.sh            gather (or refresh) the corpus; print its folder
#
# Files come from Debian packages, fetched with `apt-get download` and unpacked with `dpkg -x`.
# Where Debian ships no file of a kind (the table's `how` column says `made`), a real one is made
# with a real tool from Debian (ImageMagick, genisoimage, mkfs.vfat + mtools, mksquashfs, wixl,
# makeself, lame, flac, opusenc, openssl, ssh-keygen, python3-xlsxwriter...) or, for a few small
# text formats, written here; `copy` rows are other rows' files under a name that lies.
#
# Everything is cached outside the repository, under $SHARE_CORPUS_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/share-corpus): downloaded .debs, their unpacked trees, made files.
# A second run downloads nothing and makes nothing; the tools are installed (apt-get) only when
# a made file is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARE_SCRIPT=corpus
. scripts/avahi/common.sh

table=$PWD/Tests/Corpus/expected.tsv
cache=${SHARE_CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/share-corpus}
debs=$cache/debs
root=$cache/root
made=$cache/made
mkdir -p "$debs" "$root" "$made"
export PATH="$PATH:/usr/sbin:/sbin"

# Packages the made files are built from, beyond those the table names.
recipe_packages=(python3-xlsxwriter python3-docx apache2-data libpng-dev alsa-utils hello ca-certificates python3-radicale)
# Tools that make files (package names), installed only when a made file is missing.
recipe_tools=(imagemagick genisoimage mtools dosfstools squashfs-tools makeself wixl lame flac opus-tools
  zip zstd xz-utils bzip2 openssl openssh-client python3 python3-venv)

rows() { grep -v '^#' "$table" | grep -v '^[[:space:]]*$'; }

# --- Debian packages -------------------------------------------------------------------------

deb_of() { compgen -G "$debs/${1}_*.deb" | awk "NR == 1"; }

needed_packages() {
  rows | awk -F'\t' '$6 == "deb" || $6 == "gunzip" { split($7, a, ":"); print a[1] } $6 == "package" { print $7 }'
  printf '%s\n' "${recipe_packages[@]}"
}

fetch_packages() {
  local missing=() pkg
  while read -r pkg; do
    [ -n "$(deb_of "$pkg")" ] || missing+=("$pkg")
  done < <(needed_packages | sort -u)
  ((${#missing[@]})) || return 0
  share_say "downloading ${#missing[@]} Debian packages into $debs"
  # apt-get download needs package lists; a fresh machine may have none yet.
  if ! (cd "$debs" && apt-get download -qq "${missing[@]}" >&2 2>/dev/null); then
    apt-get update -qq >&2
    (cd "$debs" && apt-get download -qq "${missing[@]}" >&2)
  fi
}

unpack_packages() {
  local pkg deb
  while read -r pkg; do
    [ -d "$root/$pkg" ] && continue
    deb=$(deb_of "$pkg")
    [ -n "$deb" ] || share_die "no .deb for $pkg in $debs"
    rm -rf "$root/.$pkg.tmp"
    dpkg -x "$deb" "$root/.$pkg.tmp"
    mv "$root/.$pkg.tmp" "$root/$pkg"
  done < <(needed_packages | sort -u)
}

# PKG:PATH -> the file in the unpacked package.
packaged() { printf '%s/%s/%s' "$root" "${1%%:*}" "${1#*:}"; }

# --- Made files ------------------------------------------------------------------------------

ensure_tools() {
  local missing=() pkg
  for pkg in "${recipe_tools[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep >/dev/null "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) || share_apt_install "${missing[@]}"
}

icons=$root/apache2-data/usr/share/apache2/icons
png=$root/libpng-dev/usr/share/doc/libpng-dev/examples/pngtest.png
wav=$root/alsa-utils/usr/share/sounds/alsa/Front_Center.wav
mozilla=$root/ca-certificates/usr/share/ca-certificates/mozilla
sitepackages=$root/python3-xlsxwriter/usr/lib/python3/dist-packages
vba=$root/python3-xlsxwriter/usr/share/doc/python3-xlsxwriter/examples/vbaProject.bin
# ImageMagick itself: /usr/bin/convert, whatever else a PATH holds under that name.
magick=/usr/bin/convert

# A folder of a few real files, for archives and disk images.
sample_folder() {
  mkdir -p "$1/icons"
  cp "$icons"/{a.gif,back.png,folder.png,text.png,image2.png} "$1/icons/"
  cp "$root/hello/usr/share/doc/hello/copyright" "$1/README"
}

tar_icons() { tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$icons/.." -cf - icons/a.gif icons/back.png icons/folder.png icons/text.png; }

# office_crypto: msoffcrypto-tool (ECMA-376 agile encryption of Office documents), from PyPI in
# a venv of the cache (Debian's 5.0.0 cannot encrypt); prints the command.
office_crypto() {
  local venv=$cache/msoffcrypto-venv
  if ! [ -x "$venv/bin/msoffcrypto-tool" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'msoffcrypto-tool==6.1.0' >&2
  fi
  printf '%s' "$venv/bin/msoffcrypto-tool"
}

# make_file NAME TMP: writes the made file NAME to TMP (in a scratch folder, the current directory).
make_file() {
  local name=$1 out=$2
  case "$name" in
    photo.jpg) "$magick" "$png" -quality 90 "jpg:$out" ;;
    photo-progressive.jpeg) "$magick" "$png" -interlace JPEG "jpg:$out" ;;
    scan.tiff) "$magick" "$png" "tiff:$out" ;;
    scan.tif) "$magick" "$png" -compress lzw "tiff:$out" ;;
    picture.webp) "$magick" "$png" "webp:$out" ;;
    photo.heic) "$magick" "$png" "heic:$out" ;;
    icon.xbm) "$magick" "$icons/a.png" -monochrome "xbm:$out" ;;
    image.pcx) "$magick" "$png" "pcx:$out" ;;
    image.tga) "$magick" "$png" "tga:$out" ;;
    image.ppm) "$magick" "$png" "ppm:$out" ;;
    image.pgm) "$magick" "$png" -colorspace gray "pgm:$out" ;;
    image.pbm) "$magick" "$png" -monochrome "pbm:$out" ;;
    image.jp2) "$magick" "$png" "jp2:$out" ;;
    budget.xlsm)
      PYTHONPATH=$sitepackages python3 - "$out" "$vba" <<'EOF'
import sys, xlsxwriter
target = sys.argv[1] + ".xlsm"
book = xlsxwriter.Workbook(target)
sheet = book.add_worksheet()
sheet.write_row("A1", ["Month", "Rent", "Food"])
sheet.write_row("A2", ["January", 900, 300])
book.set_vba_name("ThisWorkbook")
book.add_vba_project(sys.argv[2])
book.close()
import os
os.rename(target, sys.argv[1])
EOF
      ;;
    locked-budget.xlsx)
      # Excel's built-in password: Excel opens such a workbook without asking (review 25).
      "$(office_crypto)" -e -p VelvetSweatshop "$made/budget.xlsm" "$out" ;;
    secret-budget.xlsx)
      "$(office_crypto)" -e -p 'correct horse battery staple' "$made/budget.xlsm" "$out" ;;
    report.docm)
      python3 - "$out" "$root/python3-docx/usr/lib/python3/dist-packages/docx/templates/default.docx" "$vba" <<'EOF'
# What Word writes for a macro-enabled document: the VBA project as word/vbaProject.bin, its
# relationship from the main part, and the macro-enabled main content type.
import sys, zipfile
out, docx, vba = sys.argv[1:4]
with zipfile.ZipFile(docx) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
    for item in source.infolist():
        data = source.read(item.filename)
        if item.filename == "[Content_Types].xml":
            data = data.replace(
                b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
                b"application/vnd.ms-word.document.macroEnabled.main+xml")
            data = data.replace(b"<Default ", b'<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/><Default ', 1)
        if item.filename == "word/_rels/document.xml.rels":
            data = data.replace(b"</Relationships>",
                b'<Relationship Id="rIdVba" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="vbaProject.bin"/></Relationships>')
        target.writestr(item, data)
        if item.filename == "word/document.xml":
            target.write(vba, "word/vbaProject.bin")
EOF
      ;;
    comic.cbz)
      mkdir -p comic && cp "$icons/apache_pb2.png" comic/page01.png && cp "$icons/apache_pb.png" comic/page02.png
      (cd comic && zip -q -X "$out" page01.png page02.png) ;;
    anna.vcf)
      printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lindqvist;Anna;;;\r\nFN:Anna Lindqvist\r\nEMAIL;TYPE=INTERNET:anna@example.org\r\nTEL;TYPE=CELL:+46 70 123 45 67\r\nEND:VCARD\r\n' >"$out" ;;
    team.vcf)
      printf 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Bo Nguyen\r\nEMAIL:bo@example.org\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:Chidi Okafor\r\nORG:Example Lab\r\nTEL;VALUE=uri:tel:+234-1-555-0100\r\nEND:VCARD\r\n' >"$out" ;;
    bob.vcard)
      printf 'BEGIN:VCARD\nVERSION:2.1\nN:Smith;Bob\nFN:Bob Smith\nTEL;HOME:+1 555 0100\nEND:VCARD\n' >"$out" ;;
    front-center.mp3) lame --quiet "$wav" "$out" ;;
    front-center.flac) flac --silent -f -o "$out" "$wav" ;;
    front-center.opus) opusenc --quiet "$wav" "$out" ;;
    icons.zip) (cd "$icons/.." && zip -q -X -r "$out" icons/a.gif icons/back.png icons/folder.png) ;;
    icons.tar) tar_icons >"$out" ;;
    icons.tar.gz | icons.tgz) tar_icons | gzip -n -9 >"$out" ;;
    icons.tar.bz2) tar_icons | bzip2 -9 >"$out" ;;
    icons.tar.xz) tar_icons | xz -9 >"$out" ;;
    icons.tar.zst) tar_icons | zstd -q -19 >"$out" ;;
    debian.csv.bz2) bzip2 -c "$root/distro-info-data/usr/share/distro-info/debian.csv" >"$out" ;;
    debian.csv.zst) zstd -q -c "$root/distro-info-data/usr/share/distro-info/debian.csv" >"$out" ;;
    big.iso) sample_folder iso && genisoimage -quiet -V SHARE_DATA -J -r -o "$out" iso ;;
    usb-stick.img)
      sample_folder stick && truncate -s 4M "$out" && mkfs.vfat -n STICK "$out" >/dev/null &&
        mcopy -s -i "$out" stick/icons stick/README ::/ ;;
    files.squashfs | files.sqfs) sample_folder sq && mksquashfs sq "$out" -quiet -noappend -all-root -no-progress >/dev/null ;;
    ca-certificates.crt) cat "$mozilla"/*.crt >"$out" ;;
    isrg-root-x1.der | isrg-root-x1.cer) openssl x509 -in "$mozilla/ISRG_Root_X1.crt" -outform der -out "$out" ;;
    server.key) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$out" 2>/dev/null ;;
    ec-private.pem) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out" ;;
    server.pem) openssl req -x509 -key "$(made_path server.key)" -subj /CN=lab-b -days 365 -out "$out" ;;
    server.csr) openssl req -new -key "$(made_path server.key)" -subj /CN=lab-b -out "$out" ;;
    identity.p12 | identity.pfx)
      openssl pkcs12 -export -inkey "$(made_path server.key)" -in "$(made_path server.pem)" -passout pass:share -out "$out" ;;
    id_ed25519) ssh-keygen -q -t ed25519 -N "" -C lab-b -f key && mv key "$out" ;;
    id_ed25519.pub) ssh-keygen -y -f "$(made_path id_ed25519)" >"$out" ;;
    build.cmd)
      printf '@echo off\r\nsetlocal\r\nset OUT=%%~dp0build\r\nif not exist "%%OUT%%" mkdir "%%OUT%%"\r\ncl /nologo /Fe"%%OUT%%\\app.exe" main.c\r\n' >"$out" ;;
    hello.vbs)
      printf 'Option Explicit\r\nDim shell\r\nSet shell = CreateObject("WScript.Shell")\r\nshell.Run "notepad.exe"\r\nWScript.Echo "Hello"\r\n' >"$out" ;;
    job.wsf)
      printf '<?xml version="1.0"?>\r\n<job id="main">\r\n<script language="VBScript">\r\nWScript.Echo "Hello from a Windows Script File"\r\n</script>\r\n</job>\r\n' >"$out" ;;
    update.hta)
      printf '<html>\r\n<head>\r\n<title>Update</title>\r\n<HTA:APPLICATION ID="update" APPLICATIONNAME="Update" WINDOWSTATE="minimize"/>\r\n<script language="VBScript">\r\nSub Window_OnLoad\r\n  CreateObject("WScript.Shell").Run "cmd.exe /c echo hi"\r\nEnd Sub\r\n</script>\r\n</head>\r\n<body>Updating...</body>\r\n</html>\r\n' >"$out" ;;
    settings.reg)
      printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run]\r\n"Updater"="C:\\\\Users\\\\Public\\\\updater.exe"\r\n' >"$out" ;;
    shortcut.lnk)
      python3 - "$out" <<'EOF'
# A Shell Link (MS-SHLLINK): the 76-byte header with LinkCLSID, then a relative path and arguments.
import struct, sys
flags = 0x08 | 0x20 | 0x80  # HasRelativePath, HasArguments, IsUnicode
header = struct.pack("<I16sII", 0x4C, bytes.fromhex("0114020000000000c000000000000046"), flags, 0x20)
header += bytes(24) + struct.pack("<IiIH", 0, 0, 1, 0) + bytes(10)
def counted(text):
    return struct.pack("<H", len(text)) + text.encode("utf-16-le")
with open(sys.argv[1], "wb") as f:
    f.write(header + counted("..\\..\\Windows\\System32\\cmd.exe") + counted("/c calc.exe"))
EOF
      ;;
    contacts.sqlite | notes.db)
      python3 - "$out" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table contact (name text, email text)")
db.executemany("insert into contact values (?, ?)", [("Anna", "anna@example.org"), ("Bo", "bo@example.org")])
db.commit()
db.close()
EOF
      ;;
    module.pyc)
      python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
        "$root/python3-radicale/usr/lib/python3/dist-packages/radicale/log.py" "$out" ;;
    setup.msi)
      printf 'Example application\r\n' >README.txt
      cat >product.wxs <<'EOF'
<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="5C9E3E6B-0C1E-4E6A-9C7A-2F0B9B1D6A11" Name="Example" Language="1033" Version="1.0.0"
           Manufacturer="Example" UpgradeCode="5C9E3E6B-0C1E-4E6A-9C7A-2F0B9B1D6A12">
    <Package InstallerVersion="200" Compressed="yes" Comments="Windows Installer Package"/>
    <Media Id="1" Cabinet="product.cab" EmbedCab="yes"/>
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="ProgramFilesFolder">
        <Directory Id="INSTALLDIR" Name="Example">
          <Component Id="Main" Guid="5C9E3E6B-0C1E-4E6A-9C7A-2F0B9B1D6A13">
            <File Id="ReadMe" Name="README.txt" DiskId="1" Source="README.txt" KeyPath="yes"/>
          </Component>
        </Directory>
      </Directory>
    </Directory>
    <Feature Id="Complete" Level="1"><ComponentRef Id="Main"/></Feature>
  </Product>
</Wix>
EOF
      wixl -o "$out" product.wxs ;;
    Tool-x86_64.AppImage)
      # A type-2 AppImage is an ELF runtime carrying "AI\2" at offset 8, followed by a squashfs of
      # the AppDir. hello's ELF stands in for the runtime.
      mkdir -p AppDir/usr/bin && cp "$root/hello/usr/bin/hello" AppDir/usr/bin/ && ln -s usr/bin/hello AppDir/AppRun
      printf '[Desktop Entry]\nType=Application\nName=Hello\nExec=hello\nIcon=hello\nCategories=Utility;\n' >AppDir/hello.desktop
      cp "$icons/a.png" AppDir/hello.png
      cp "$root/hello/usr/bin/hello" runtime && printf 'AI\002' | dd of=runtime bs=1 seek=8 conv=notrunc status=none
      mksquashfs AppDir fs.squashfs -quiet -noappend -all-root -no-progress >/dev/null
      cat runtime fs.squashfs >"$out" ;;
    org.example.App.flatpakref)
      printf '[Flatpak Ref]\nName=org.example.App\nBranch=stable\nTitle=Example App\nUrl=https://dl.example.org/repo/\nIsRuntime=false\nRuntimeRepo=https://dl.example.org/example.flatpakrepo\n' >"$out" ;;
    example.flatpakrepo)
      printf '[Flatpak Repo]\nTitle=Example\nUrl=https://dl.example.org/repo/\nHomepage=https://example.org/\nComment=Example applications\n' >"$out" ;;
    driver-installer.run)
      mkdir -p payload && cp "$root/hello/usr/bin/hello" payload/ &&
        printf '#!/bin/sh\ninstall -m 755 hello /usr/local/bin/hello\n' >payload/install.sh && chmod +x payload/install.sh
      makeself --quiet --nox11 --tar-extra "--mtime=@0" payload "$out" "Example driver" ./install.sh >/dev/null 2>&1 ;;
    hello.snap)
      mkdir -p snap/meta snap/bin && cp "$root/hello/usr/bin/hello" snap/bin/
      printf 'name: hello\nversion: "2.10"\nsummary: GNU Hello\ndescription: Prints a greeting.\napps:\n  hello:\n    command: bin/hello\n' >snap/meta/snap.yaml
      mksquashfs snap "$out" -quiet -noappend -all-root -no-progress -comp xz >/dev/null ;;
    *) share_die "no recipe for the made file $name" ;;
  esac
}

made_path() { printf '%s/%s' "$made" "$1"; }

# Makes every made file not yet cached, each in its own scratch folder.
make_files() {
  local name missing=()
  while read -r name; do
    [ -f "$made/$name" ] || missing+=("$name")
  done < <(rows | awk -F'\t' '$6 == "made" { print $1 }')
  ((${#missing[@]})) || return 0
  ensure_tools
  # Files other recipes are made from come first.
  for name in server.key server.pem id_ed25519 budget.xlsm "${missing[@]}"; do
    [ -f "$made/$name" ] && continue
    local scratch
    scratch=$(mktemp -d "$cache/.make.XXXXXX")
    if ! (cd "$scratch" && make_file "$name" "$scratch/.out" && [ -s "$scratch/.out" ]); then
      rm -rf "$scratch"
      share_die "could not make $name"
    fi
    mv "$scratch/.out" "$made/$name"
    rm -rf "$scratch"
  done
  share_say "made ${#missing[@]} files"
}

# --- The corpus ------------------------------------------------------------------------------

assemble() {
  local next=$cache/.files.new file family kind expect cause how from source
  rm -rf "$next"
  mkdir -p "$next"
  while IFS=$'\t' read -r file family kind expect cause how from; do
    case "$how" in
      deb) source=$(packaged "$from") ;;
      gunzip) source=$(packaged "$from") ;;
      package) source=$(deb_of "$from") ;;
      made) source=$made/$file ;;
      copy) source=$next/$from ;;
      *) share_die "$file: unknown how '$how'" ;;
    esac
    [ -f "$source" ] || share_die "$file: no file at $source"
    if [ "$how" = gunzip ]; then
      gzip -dc "$source" >"$next/$file"
    else
      cp "$source" "$next/$file"
    fi
    chmod u+rw "$next/$file"
  done < <(rows)
  rm -rf "$cache/files"
  mv "$next" "$cache/files"
}

fetch_packages
unpack_packages
make_files
assemble
share_say "$(rows | wc -l) files in $cache/files"
printf '%s\n' "$cache/files"
