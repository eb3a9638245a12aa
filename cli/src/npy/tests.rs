use super::*;

#[test]
fn a_header_length_past_the_file_is_an_error_not_an_allocation() {
    // fuzz/fuzz_targets/npy.rs found it: version 3.0, header length 0xff7b0076 in 153 bytes.
    let mut bytes = b"\x93NUMPY\x03\x00\x76\x00\x7b\xff".to_vec();
    bytes.extend_from_slice(b"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }");
    let len = bytes.len() as u64;
    let e = read_from(std::io::Cursor::new(bytes), Some(len), Path::new("x.npy")).unwrap_err();
    assert!(e.to_string().contains("header of 4286251126 bytes"), "{e}");
    let e = read_from(
        std::io::Cursor::new(b"\x93NUMPX".to_vec()),
        Some(6),
        Path::new("y.npy"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("magic"), "{e}");
}

#[test]
fn every_dtype_and_byte_order_round_trips_bit_for_bit() {
    let arrays = [
        Array::new(Data::F16(vec![f16::from_f32(1.5), f16::NAN]), vec![2]),
        Array::new(
            Data::F32(vec![0.0, -0.0, f32::from_bits(0x7fc0_1234)]),
            vec![3, 1],
        ),
        Array::new(Data::F64(vec![1e300, -2.5]), vec![2]),
        Array::new(Data::I32(vec![i32::MIN, 7]), vec![1, 2]),
        Array::new(Data::U32(vec![u32::MAX]), vec![]),
        Array::new(Data::U8(vec![]), vec![0, 4]),
    ];
    for mut a in arrays {
        for big in [false, true] {
            a.big_endian = big && a.data.item_size() > 1;
            let bytes = to_bytes(&a).unwrap();
            let back = read_from(
                std::io::Cursor::new(&bytes),
                Some(bytes.len() as u64),
                Path::new("m"),
            )
            .unwrap();
            assert_eq!(back.shape, a.shape);
            assert_eq!(back.descr(), a.descr());
            assert_eq!(back.data.bytes(), a.data.bytes(), "{}", a.descr());
        }
    }
}

#[test]
fn a_header_claiming_more_than_the_file_is_refused_before_allocating() {
    let a = Array::new(Data::F32(vec![1.0; 4]), vec![4]);
    let mut bytes = to_bytes(&a).unwrap();
    let pos = bytes.windows(7).position(|w| w == b"(4,), }").unwrap();
    let huge = "(1099511627776,), }";
    // Keep the header length: overwrite the shape, the dict's end and padding after it.
    bytes.splice(pos..pos + huge.len(), huge.bytes());
    let e = read_from(
        std::io::Cursor::new(&bytes),
        Some(bytes.len() as u64),
        Path::new("h"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[test]
fn nested_brackets_in_the_header_fail_at_once_with_a_message_about_the_file() {
    // The fuzzer's input: each bracket doubled the old parser's time (9.6 s at depth 20).
    for depth in [16usize, 32, 5000, 20000] {
        let dict = format!(
            "{{'descr': '<f4', 'fortran_order': {} False, 'shape': (3,), }}",
            "[".repeat(depth)
        );
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict.as_bytes());
        let len = bytes.len() as u64;
        let t = std::time::Instant::now();
        let e = read_from(std::io::Cursor::new(bytes), Some(len), Path::new("b.npy"));
        assert!(
            t.elapsed().as_secs_f64() < 0.5,
            "depth {depth}: {:?}",
            t.elapsed()
        );
        let e = e.unwrap_err().to_string();
        if depth < 10_000 {
            assert!(
                e.contains("expected True or False for 'fortran_order'"),
                "{e}"
            );
        } else {
            assert!(e.contains("at most 10000"), "{e}");
        }
        assert!(e.starts_with("b.npy: "), "{e}");
    }
}

#[test]
fn files_written_here_have_numpys_layout() {
    let a = Array::new(Data::F32(vec![1.0, 2.0, 3.0]), vec![3]);
    let bytes = to_bytes(&a).unwrap();
    // The data starts at a multiple of 64 bytes, the header ends in a newline (NEP 1).
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    assert_eq!(bytes[10 + header_len - 1], b'\n');
    assert_eq!(
        &bytes[10..10 + 57],
        b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
    );
    assert_eq!(bytes.len(), 10 + header_len + 12);
}

#[test]
fn a_dimension_past_numpys_largest_is_refused_even_in_an_empty_array() {
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 18446744073709551615), }";
    let pad = 117 - header.len();
    let mut bytes = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend(std::iter::repeat_n(b' ', pad));
    bytes.push(b'\n');
    let len = bytes.len() as u64;
    let e = read_from(std::io::Cursor::new(bytes), Some(len), Path::new("big.npy"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("over NumPy's largest"), "{e}");
}
